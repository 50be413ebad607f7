import { describe, expect, it } from 'vitest'
import { setEnv } from '@/config/env'
import { imageUrl } from './media'

setEnv({ SUPABASE_URL: 'https://api.backline.test/', SUPABASE_ANON_KEY: 'anon' })

describe('imageUrl', () => {
  it('asks storage for a stored photo at twice the size shown, cropped to fill', () => {
    expect(imageUrl('/storage/v1/object/public/avatars/u1/a.png', 40)).toBe(
      'https://api.backline.test/storage/v1/render/image/public/avatars/u1/a.png?width=80&height=80&resize=cover',
    )
    expect(imageUrl('https://api.backline.test/storage/v1/object/public/avatars/u1/b.jpg', 112)).toBe(
      'https://api.backline.test/storage/v1/render/image/public/avatars/u1/b.jpg?width=224&height=224&resize=cover',
    )
  })
  it("leaves other pictures (a provider's) and nothing alone", () => {
    expect(imageUrl('https://lh3.googleusercontent.com/a/photo.jpg', 40)).toBe('https://lh3.googleusercontent.com/a/photo.jpg')
    expect(imageUrl(null, 40)).toBeUndefined()
  })
})
