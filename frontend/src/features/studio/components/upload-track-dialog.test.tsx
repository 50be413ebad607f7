// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import { fakeAudioFiles } from '@/test/media'
import { UploadTrackDialog } from './upload-track-dialog'

const ARTIST = '00000000-0000-4000-8000-0000000000a1'

/** open renders the dialog and opens it. */
async function open() {
  installFakeApi({ rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) } })
  renderApp([{ path: '*', element: <UploadTrackDialog userId={ARTIST} /> }], '/')
  fireEvent.click(await screen.findByRole('button', { name: 'Upload track' }))
  return screen.findByRole('dialog')
}

const wav = (name = 'lagos-nights.wav') => new File([new Uint8Array(2048)], name, { type: 'audio/wav' })
const drop = (zone: HTMLElement, file: File) => {
  fireEvent.dragOver(zone, { dataTransfer: { files: [file] } })
  fireEvent.drop(zone, { dataTransfer: { files: [file] } })
}

describe('the upload dialog', () => {
  it("takes a dropped audio file and shows its length before anything is uploaded", async () => {
    fakeAudioFiles({ duration: 60.4 })
    const dialog = await open()
    drop(within(dialog).getByTestId('track-audio-drop'), wav())
    const chosen = await within(dialog).findByTestId('audio-chosen')
    expect(within(chosen).getByText('lagos-nights.wav')).toBeTruthy()
    await within(chosen).findByText('1:00')
    expect(within(dialog).queryByText(/can never count as streams/)).toBeNull()
  })

  it('warns about a track too short to ever count as a stream', async () => {
    fakeAudioFiles({ duration: 12 })
    const dialog = await open()
    fireEvent.change(within(dialog).getByLabelText('Audio file'), { target: { files: [wav('short.wav')] } })
    await within(dialog).findByText('0:12')
    expect(within(dialog).getByText('Shorter than 30 seconds: its plays can never count as streams.')).toBeTruthy()
  })

  it("says when the browser cannot read a file's length", async () => {
    fakeAudioFiles('error')
    const dialog = await open()
    drop(within(dialog).getByTestId('track-audio-drop'), wav('odd.flac'))
    await within(dialog).findByText('length unknown')
    expect(within(dialog).getByText('Its length is measured once it is uploaded.')).toBeTruthy()
  })

  it('previews a dropped cover, and lets the previous preview go when it changes', async () => {
    const files = fakeAudioFiles({ duration: 60 })
    const dialog = await open()
    const zone = within(dialog).getByTestId('track-cover-drop')
    drop(zone, new File([new Uint8Array(10)], 'cover.png', { type: 'image/png' }))
    const preview = await within(dialog).findByRole('img', { name: 'Cover preview' })
    const first = preview.getAttribute('src')
    expect(first).toMatch(/^blob:/)
    drop(zone, new File([new Uint8Array(10)], 'cover2.webp', { type: 'image/webp' }))
    await within(dialog).findByRole('img', { name: 'Cover preview' })
    expect(within(dialog).getByRole('img', { name: 'Cover preview' }).getAttribute('src')).not.toBe(first)
    expect(files.revoked).toContain(first)
  })
})
