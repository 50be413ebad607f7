import { describe, expect, it } from 'vitest'
import { deviceTrustScore, fingerprintHash, isSuspiciousDevice, type DeviceSignals } from './device-trust'

const clean: DeviceSignals = {
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36',
  webdriver: false,
  cookiesEnabled: true,
  screenWidth: 1440,
  screenHeight: 900,
  hardwareConcurrency: 8,
  automation: false,
}

describe('deviceTrustScore', () => {
  it.each<[string, Partial<DeviceSignals>, number]>([
    ['clean browser', {}, 100],
    ['headless', { userAgent: 'Mozilla/5.0 HeadlessChrome/130.0' }, 50],
    ['cookies disabled', { cookiesEnabled: false }, 80],
    ['invalid screen', { screenWidth: 0 }, 70],
    ['no hardware concurrency', { hardwareConcurrency: undefined }, 85],
    ['webdriver', { webdriver: true }, 60],
    ['automation framework', { automation: true }, 55],
    ['headless + webdriver', { userAgent: 'HeadlessChrome', webdriver: true }, 10],
    ['everything wrong clamps to 0', { userAgent: 'HeadlessChrome', webdriver: true, automation: true, cookiesEnabled: false }, 0],
  ])('%s', (_name, patch, want) => {
    expect(deviceTrustScore({ ...clean, ...patch })).toBe(want)
  })

  it('is suspicious below 60', () => {
    expect(isSuspiciousDevice(59)).toBe(true)
    expect(isSuspiciousDevice(60)).toBe(false)
  })
})

describe('fingerprintHash', () => {
  it('is stable and sensitive to every part', () => {
    expect(fingerprintHash(['a', 'b'])).toBe(fingerprintHash(['a', 'b']))
    expect(fingerprintHash(['a', 'b'])).not.toBe(fingerprintHash(['a', 'c']))
    expect(fingerprintHash(['x'])).toMatch(/^[0-9a-f]{8}$/)
  })
})
