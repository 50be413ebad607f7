// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { installFakeApi, renderApp, signIn } from '@/test/app'
import { Answer, type BackendSetup } from '@/test/fake-backend'
import { FanCard } from './people-cards'
import { AvatarUpload } from './avatar-upload'

// A profile photo goes into the user's folder of the avatars bucket and
// becomes their avatar_url; without one, initials show.

const FAN = '00000000-0000-4000-8000-00000000f001'

function show(avatarUrl: string | null, setup: BackendSetup = {}) {
  signIn({ id: FAN })
  const api = installFakeApi({ ...setup, tables: { public_profiles: [{ id: FAN, display_name: 'Ada Lovelace', avatar_url: avatarUrl }], ...setup.tables } })
  renderApp([{ path: '/', element: <AvatarUpload userId={FAN} name="Ada Lovelace" avatarUrl={avatarUrl} /> }], '/')
  return api
}

const pick = (file: File) => fireEvent.change(screen.getByLabelText('Profile photo file'), { target: { files: [file] } })

describe('profile photo', () => {
  it("uploads the photo into the user's own folder and sets it as the avatar", async () => {
    const { backend } = show(null)
    expect(screen.getByText('AL')).toBeTruthy()
    pick(new File([new Uint8Array(2048)], 'me.png', { type: 'image/png' }))
    await screen.findByText('Profile photo updated')
    expect(backend.objects).toEqual([{ bucket: 'avatars', name: expect.stringMatching(new RegExp(`^${FAN}/[0-9a-f-]{36}\\.png$`)), type: 'image/png', size: expect.any(Number) }])
    const [update] = backend.calls('public_profiles', 'PATCH')
    expect(update.query.get('id')).toBe(`eq.${FAN}`)
    expect(update.body).toEqual({ avatar_url: `/storage/v1/object/public/avatars/${backend.objects[0].name}` })
  })

  it.each([
    ['a file that is not an image', new File(['%PDF'], 'cv.pdf', { type: 'application/pdf' }), 'Choose a JPEG, PNG, WebP or GIF image'],
    ['a photo over 5 MB', new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'big.jpg', { type: 'image/jpeg' }), 'The photo is larger than 5 MB'],
  ])('refuses %s before uploading anything', async (_case, file, message) => {
    const { backend } = show(null)
    pick(file)
    await screen.findByText(message)
    expect(backend.objects).toEqual([])
    expect(backend.calls('public_profiles', 'PATCH')).toEqual([])
  })

  it("shows storage's refusal and changes nothing", async () => {
    const { backend } = show(null, {
      onUpload: () => new Answer(403, { statusCode: '403', code: 'Unauthorized', error: 'Unauthorized', message: 'new row violates row-level security policy' }),
    })
    pick(new File([new Uint8Array(10)], 'me.webp', { type: 'image/webp' }))
    await screen.findByText('new row violates row-level security policy')
    expect(backend.calls('public_profiles', 'PATCH')).toEqual([])
  })

  it('removes the photo', async () => {
    const { backend } = show('/storage/v1/object/public/avatars/x/me.png')
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }))
    await screen.findByText('Profile photo removed')
    await waitFor(() => expect(backend.calls('public_profiles', 'PATCH').map((c) => c.body)).toEqual([{ avatar_url: null }]))
  })

  it("shows a fan's initials, not the app's logo, when they have no photo", async () => {
    installFakeApi({})
    renderApp([{ path: '/', element: <FanCard fan={{ id: 'f-2', display_name: 'Tunde Bakare', username: 'tunde', avatar_url: null, streamCount: 4 }} online={false} /> }], '/')
    await screen.findByText('TB')
    expect(document.querySelector('img')).toBeNull()
  })
})
