// Device fingerprint and trust score of spec section 5. The server recomputes
// the score from the submitted details; the client uses it only when the fraud
// RPC cannot be reached.

/** DeviceSignals are the browser facts the trust score looks at. */
export interface DeviceSignals {
  userAgent: string
  webdriver: boolean
  cookiesEnabled: boolean
  screenWidth: number
  screenHeight: number
  hardwareConcurrency: number | undefined
  /** automation marks globals left by automation frameworks (Selenium, Puppeteer, Playwright, PhantomJS). */
  automation: boolean
}

/** SUSPICIOUS_BELOW: a device scoring under this is suspicious. */
export const SUSPICIOUS_BELOW = 60

/** isHeadless recognises headless browsers from the user agent. */
export const isHeadless = (ua: string) => /HeadlessChrome|PhantomJS|Headless/i.test(ua)

/**
 * deviceTrustScore starts at 100 and subtracts 50 for a headless browser, 20
 * for cookies disabled, 30 for an invalid screen resolution, 15 for missing
 * hardware-concurrency information, 40 for a WebDriver and 45 for an
 * automation framework, clamped to 0–100.
 */
export function deviceTrustScore(s: DeviceSignals): number {
  let score = 100
  if (isHeadless(s.userAgent)) score -= 50
  if (!s.cookiesEnabled) score -= 20
  if (!(s.screenWidth > 0 && s.screenHeight > 0)) score -= 30
  if (!s.hardwareConcurrency) score -= 15
  if (s.webdriver) score -= 40
  if (s.automation) score -= 45
  return Math.min(100, Math.max(0, score))
}

/** isSuspiciousDevice applies the threshold. */
export const isSuspiciousDevice = (score: number) => score < SUSPICIOUS_BELOW

/** readDeviceSignals collects the signals from the running browser. */
export function readDeviceSignals(): DeviceSignals {
  const w = window as unknown as Record<string, unknown>
  return {
    userAgent: navigator.userAgent,
    webdriver: navigator.webdriver === true,
    cookiesEnabled: navigator.cookieEnabled,
    screenWidth: screen.width,
    screenHeight: screen.height,
    hardwareConcurrency: navigator.hardwareConcurrency,
    automation: ['__nightmare', '_phantom', 'callPhantom', '__selenium_unwrapped', '__playwright__binding__', '__pwInitScripts', 'domAutomation'].some(
      (k) => k in w,
    ),
  }
}

/** DeviceFingerprint is what update_device_fingerprint and detect_stream_fraud receive. */
export interface DeviceFingerprint {
  fingerprint: string
  userAgent: string
  screenResolution: string
  timezone: string
  language: string
  platform: string
  trustScore: number
  /** details are the raw signals the server rescores. */
  details: { hardwareConcurrency: number | null; webdriver: boolean; cookiesEnabled: boolean; automation: boolean; headless: boolean }
}

/** fingerprintHash is a stable 32-bit FNV-1a hex digest of the joined signals. */
export function fingerprintHash(parts: string[]): string {
  let h = 0x811c9dc5
  for (const ch of parts.join('|')) {
    h ^= ch.charCodeAt(0)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}

/** collectFingerprint builds the device fingerprint for the current browser. */
export function collectFingerprint(): DeviceFingerprint {
  const s = readDeviceSignals()
  const screenResolution = `${s.screenWidth}x${s.screenHeight}`
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone ?? ''
  const language = navigator.language
  const platform = navigator.platform
  return {
    fingerprint: fingerprintHash([s.userAgent, screenResolution, timezone, language, platform, String(s.hardwareConcurrency ?? '')]),
    userAgent: s.userAgent,
    screenResolution,
    timezone,
    language,
    platform,
    trustScore: deviceTrustScore(s),
    details: {
      hardwareConcurrency: s.hardwareConcurrency ?? null,
      webdriver: s.webdriver,
      cookiesEnabled: s.cookiesEnabled,
      automation: s.automation,
      headless: isHeadless(s.userAgent),
    },
  }
}
