import { vi } from 'vitest'

// jsdom has no media playback: this stands in for the browser's audio
// element, playing when asked (or refusing, as a browser does without a user
// gesture or with a broken source) and reporting paused as a browser would.

/** fakeMedia replaces HTMLMediaElement's playback; vi.restoreAllMocks puts it back. */
export function fakeMedia() {
  const paused = new WeakMap<HTMLMediaElement, boolean>()
  let refusal: string | null = null
  let held: (() => void)[] | null = null
  vi.spyOn(HTMLMediaElement.prototype, 'paused', 'get').mockImplementation(function (this: HTMLMediaElement) {
    return paused.get(this) ?? true
  })
  const play = vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
    if (refusal) return Promise.reject(new DOMException('play() failed', refusal))
    const begin = () => void paused.set(this, false)
    if (!held) return Promise.resolve(begin())
    const waiting = held
    return new Promise<void>((resolve) => waiting.push(() => resolve(begin())))
  })
  const pause = vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(function (this: HTMLMediaElement) {
    paused.set(this, true)
  })
  return {
    play,
    pause,
    /** refuse makes the next plays fail with a DOMException of that name (e.g. NotSupportedError). */
    refuse: (name: string) => void (refusal = name),
    /** hold keeps the next plays loading (paused, their promise pending) until release. */
    hold: () => void (held = []),
    release: () => {
      const waiting = held ?? []
      held = null
      for (const start of waiting) start()
    },
  }
}

/**
 * fakeAudioFiles lets jsdom read audio files the way a browser does: object
 * URLs for blobs, and audio elements that report the given length (or fail,
 * or never answer) once a source is set. vi.restoreAllMocks and
 * vi.unstubAllGlobals put everything back.
 */
export function fakeAudioFiles(outcome: { duration: number } | 'error' | 'silent') {
  const urls: string[] = []
  const revoked: string[] = []
  vi.stubGlobal(
    'URL',
    Object.assign(class extends URL {}, {
      createObjectURL: () => {
        urls.push(`blob:fake/${urls.length}`)
        return urls[urls.length - 1]
      },
      revokeObjectURL: (u: string) => void revoked.push(u),
    }),
  )
  const create = document.createElement.bind(document)
  const setSrc = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'src')!.set!
  vi.spyOn(document, 'createElement').mockImplementation((tag: string, options?: ElementCreationOptions) => {
    const el = create(tag, options)
    if (tag !== 'audio') return el
    Object.defineProperty(el, 'duration', { get: () => (typeof outcome === 'object' ? outcome.duration : NaN) })
    Object.defineProperty(el, 'src', {
      set(v: string) {
        setSrc.call(el, v)
        if (outcome !== 'silent') queueMicrotask(() => el.dispatchEvent(new Event(outcome === 'error' ? 'error' : 'loadedmetadata')))
      },
    })
    return el
  })
  return { urls, revoked }
}
