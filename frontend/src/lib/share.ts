import { toast } from 'sonner'

// Sharing a page: the system share sheet where the browser has one (phones),
// else the link is copied with the spec's messages.

/** ShareTarget is what is shared: a title, a line of text and the app path. */
export interface ShareTarget {
  title: string
  text?: string
  path: string
}

/** shareUrl is the absolute link of an app path. */
export function shareUrl(path: string, origin = window.location.origin): string {
  return new URL(path, origin).toString()
}

/**
 * shareLink shares t: 'shared' through the Web Share API, 'cancelled' when
 * the user closed the sheet, 'copied' or 'failed' for the clipboard.
 */
export async function shareLink(t: ShareTarget): Promise<'shared' | 'cancelled' | 'copied' | 'failed'> {
  const url = shareUrl(t.path)
  const data = { title: t.title, text: t.text, url }
  if (typeof navigator.share === 'function' && (typeof navigator.canShare !== 'function' || navigator.canShare(data))) {
    try {
      await navigator.share(data)
      return 'shared'
    } catch (e) {
      if (e instanceof DOMException && e.name === 'AbortError') return 'cancelled'
      // Any other refusal (no user gesture, a policy): copy instead.
    }
  }
  try {
    await navigator.clipboard.writeText(url)
    toast.success('Link copied to clipboard!')
    return 'copied'
  } catch {
    toast.error('Failed to copy link')
    return 'failed'
  }
}
