// @vitest-environment jsdom
import { fireEvent, render } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { setEnv } from '@/config/env'
import { useSettingsStore } from '@/stores/settings-store'
import { SafeImage } from './safe-image'

setEnv({ SUPABASE_URL: 'https://api.backline.test', SUPABASE_ANON_KEY: 'anon' })

const img = (ui: React.ReactElement) => render(ui).container.querySelector('img')!

describe('SafeImage', () => {
  it('asks storage for a stored cover at the size shown and reserves its box', () => {
    const el = img(<SafeImage src="/storage/v1/object/public/covers/a1/c.png" alt="" size={48} />)
    expect(el.getAttribute('src')).toBe('https://api.backline.test/storage/v1/render/image/public/covers/a1/c.png?width=96&height=96&resize=cover')
    expect(el.getAttribute('width')).toBe('48')
    expect(el.getAttribute('height')).toBe('48')
  })
  it('asks for a small rendition with the data saver on', () => {
    useSettingsStore.setState({ dataSaver: true })
    try {
      const el = img(<SafeImage src="/storage/v1/object/public/covers/a1/c.png" alt="" size={320} />)
      expect(el.getAttribute('src')).toBe('https://api.backline.test/storage/v1/render/image/public/covers/a1/c.png?width=48&height=48&resize=cover')
      expect(el.getAttribute('width')).toBe('320')
    } finally {
      useSettingsStore.setState({ dataSaver: false })
    }
  })
  it('loads lazily unless the image is above the fold', () => {
    expect(img(<SafeImage src={null} alt="" size={200} />).getAttribute('loading')).toBe('lazy')
    expect(img(<SafeImage src={null} alt="" size={200} loading="eager" />).getAttribute('loading')).toBe('eager')
  })
  it('shows the default image for a missing, placeholder or broken cover', () => {
    expect(img(<SafeImage src={null} alt="" size={48} />).getAttribute('src')).toBe('/default-cover.png')
    expect(img(<SafeImage src="https://x.test/placeholder.png" alt="" size={48} />).getAttribute('src')).toBe('/default-cover.png')
    const broken = img(<SafeImage src="/storage/v1/object/public/covers/a1/gone.png" alt="" size={48} />)
    fireEvent.error(broken)
    expect(broken.getAttribute('src')).toBe('/default-cover.png')
  })
})
