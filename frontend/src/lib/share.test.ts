// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toast } from 'sonner'
import { shareLink, shareUrl } from './share'

vi.mock('sonner', () => ({ toast: { success: vi.fn(), error: vi.fn() } }))

const nav = navigator as unknown as Record<string, unknown>

afterEach(() => {
  delete nav.share
  delete nav.canShare
  vi.clearAllMocks()
})

function clipboard(write: (s: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText: write }, configurable: true })
}

describe('shareLink', () => {
  it('uses the Web Share API where present, with the absolute link', async () => {
    const share = vi.fn().mockResolvedValue(undefined)
    nav.share = share
    const write = vi.fn()
    clipboard(write)
    expect(await shareLink({ title: 'Essence', text: 'Wizkid', path: '/track/1' })).toBe('shared')
    expect(share).toHaveBeenCalledWith({ title: 'Essence', text: 'Wizkid', url: shareUrl('/track/1') })
    expect(write).not.toHaveBeenCalled()
    expect(toast.success).not.toHaveBeenCalled()
  })

  it('says nothing when the user closes the share sheet', async () => {
    nav.share = vi.fn().mockRejectedValue(new DOMException('closed', 'AbortError'))
    const write = vi.fn()
    clipboard(write)
    expect(await shareLink({ title: 'x', path: '/track/1' })).toBe('cancelled')
    expect(write).not.toHaveBeenCalled()
  })

  it("copies the link with the spec's message without the API", async () => {
    const write = vi.fn().mockResolvedValue(undefined)
    clipboard(write)
    expect(await shareLink({ title: 'x', path: '/playlists/p' })).toBe('copied')
    expect(write).toHaveBeenCalledWith(shareUrl('/playlists/p'))
    expect(toast.success).toHaveBeenCalledWith('Link copied to clipboard!')
  })

  it("says 'Failed to copy link' when the clipboard refuses", async () => {
    clipboard(() => Promise.reject(new Error('denied')))
    expect(await shareLink({ title: 'x', path: '/track/1' })).toBe('failed')
    expect(toast.error).toHaveBeenCalledWith('Failed to copy link')
  })
})
