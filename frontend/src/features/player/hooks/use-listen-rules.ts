import { useEffect, useEffectEvent, useRef } from 'react'
import { useNavigate } from 'react-router'
import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { useAuthStore } from '@/lib/auth'
import { supabase, type Client } from '@/lib/supabase'
import { usePlayerStore } from '@/stores/player-store'
import { useSettingsStore } from '@/stores/settings-store'
import { AFTER_PAYMENT_KEYS, finishPlay, LIMIT_REACHED, MIN_LISTEN_SECONDS, recordListen, startPlay, STREAM_PAYMENT, SUSPENDED, type StartedPlay, type StreamContext, type StreamOutcome } from '../api/record-stream'

/** PREVIEW_SECONDS is the visitor preview and preview-track cap. */
export const PREVIEW_SECONDS = 10

/**
 * useListenRules counts the seconds a track really plays and applies the
 * rules of spec section 4: the visitor preview, preview tracks, the fan daily
 * limit at start and at 30 s, and one stream recording per play after 30 s.
 */
export function useListenRules(audio: React.RefObject<HTMLAudioElement | null>) {
  const navigate = useNavigate()
  const qc = useQueryClient()
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const track = usePlayerStore((s) => s.currentTrack)
  const playId = usePlayerStore((s) => s.playId)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const listened = useRef(0)
  const recorded = useRef(false)
  const limitReached = useRef(false)
  // The server's play, started when the track starts and finished at 30 s.
  const started = useRef<Promise<StartedPlay> | null>(null)
  // offline: this play started with no network, so it is never recorded.
  const offline = useRef(false)

  const stopForLimit = (message: string) => {
    limitReached.current = true
    const { setPlaying, clear } = usePlayerStore.getState()
    setPlaying(false)
    toast.warning(message)
    setTimeout(() => clear(), 1000)
  }

  // settle finishes the play once it reached 30 s and announces the outcome.
  const settle = (seconds: number) => {
    if (!user || !track || !started.current) return
    void settleStream(supabase(), qc, { userId: user.id, role, track, seconds }, started.current, stopForLimit)
  }

  // The whole listen of a recorded play goes to the server when it pauses,
  // ends or the page is hidden: the history shows how long it lasted. A play
  // shorter than 30 s has no stream, so nothing to report.
  const reported = useRef(0)
  const reportListen = () => {
    const play = started.current
    const seconds = listened.current
    if (!play || !recorded.current || seconds <= reported.current) return
    reported.current = seconds
    void play.then((p) => ('playId' in p ? recordListen(supabase(), p.playId, seconds) : undefined))
  }
  const onListenPause = useEffectEvent(reportListen)
  useEffect(() => {
    if (!isPlaying) onListenPause()
  }, [isPlaying])
  useEffect(() => {
    const hidden = () => document.visibilityState === 'hidden' && onListenPause()
    document.addEventListener('visibilitychange', hidden)
    return () => document.removeEventListener('visibilitychange', hidden)
  }, [])

  // Per play: report the previous play's listen, then reset counters. A
  // restored queue's track (after a reload) is a play that has not started:
  // nothing reaches the server until it plays.
  const onNewPlay = useEffectEvent(() => {
    reportListen()
    reported.current = 0
    listened.current = 0
    recorded.current = false
    limitReached.current = false
    started.current = null
    offline.current = false
  })
  // When the play first really starts, open the server's play, which also
  // checks a fan's allowance (spec: checked when a track starts). Offline
  // there is no server: the play is the device's own and never counts.
  const onPlaying = useEffectEvent(() => {
    if (!track || !user || started.current || offline.current) return
    if (!navigator.onLine) {
      offline.current = true
      announceOfflinePlay()
      return
    }
    const play = startPlay(supabase(), track.id)
    started.current = play
    void play.then((r) => {
      if (started.current !== play || role !== 'fan') return
      if ('refused' in r && r.refused.startsWith(LIMIT_REACHED)) stopForLimit(r.refused)
      // Fail safe: a limit check that fails means no streams remain.
      else if ('failed' in r) stopForLimit(`${LIMIT_REACHED} You have 0 streams remaining today.`)
    })
  })
  const userId = user?.id
  useEffect(() => {
    onNewPlay()
  }, [playId, userId])
  useEffect(() => {
    if (isPlaying) onPlaying()
  }, [isPlaying, playId, userId])

  // Count listening seconds while the audio really plays.
  const onTick = useEffectEvent((timer: number) => {
      const el = audio.current
      if (!track || !el || el.paused) return
      listened.current += 1
      const seconds = listened.current
      if (!user && seconds >= PREVIEW_SECONDS) {
        usePlayerStore.getState().setPlaying(false)
        toast.info('Preview limit reached - Create an account to enjoy full songs!')
        window.clearInterval(timer)
        setTimeout(() => {
          usePlayerStore.getState().clear()
          navigate('/register')
        }, 500)
        return
      }
      if (track.isPreview && seconds >= PREVIEW_SECONDS) {
        usePlayerStore.getState().setPlaying(false)
        toast.info('Preview ended - 10-second preview has finished')
        // In a queue the next track follows, as at the end of any track.
        setTimeout(() => usePlayerStore.getState().advance(), 500)
        return
      }
      if (user && !offline.current && seconds >= MIN_LISTEN_SECONDS && !recorded.current && !limitReached.current) {
        recorded.current = true
        settle(seconds)
      }
  })
  const hasTrack = !!track
  useEffect(() => {
    if (!hasTrack || !isPlaying) return
    const timer: number = window.setInterval(() => onTick(timer), 1000)
    return () => window.clearInterval(timer)
  }, [hasTrack, isPlaying, playId])


}

/** OFFLINE_PLAY_NOTICE tells a listener, once, that plays without a network do not count. */
export const OFFLINE_PLAY_NOTICE = "You're offline - offline plays are not counted as streams and pay no one"

// announceOfflinePlay says so the first time only, on this device.
function announceOfflinePlay() {
  const settings = useSettingsStore.getState()
  if (settings.offlineNoticeShown) return
  settings.markOfflineNoticeShown()
  toast.info(OFFLINE_PLAY_NOTICE)
}

/** REFRESHING are the outcomes after which a stream was counted and money may have moved. */
const REFRESHING: ReadonlySet<StreamOutcome['kind']> = new Set(['counted', 'sponsored', 'payment-failed', 'not-eligible'])

/**
 * settleStream is what happens when a play reaches 30 s: the play started on
 * the server is finished in one call (the stream recorded, a sponsored one
 * paid), its outcome announced, and after a counted stream every cache the
 * spec lists is refreshed. A fan whose allowance ran out is stopped through
 * stopForLimit. A play the server did not start records nothing.
 */
export async function settleStream(sb: Client, qc: QueryClient, ctx: StreamContext, play: Promise<StartedPlay>, stopForLimit: (message: string) => void): Promise<void> {
  let outcome: StreamOutcome
  try {
    const started = await play
    if ('playId' in started) outcome = await finishPlay(sb, started.playId, ctx)
    else if ('refused' in started && started.refused === SUSPENDED) outcome = { kind: 'suspended' }
    else if ('refused' in started && started.refused.startsWith(LIMIT_REACHED)) return
    else outcome = { kind: 'error', message: `Stream tracking error: ${'refused' in started ? started.refused : started.failed}` }
  } catch (e) {
    console.error('record stream', e)
    toast.error('An unexpected error occurred while processing your stream')
    return
  }
  announce(outcome)
  if (outcome.kind === 'limit-reached') stopForLimit(LIMIT_REACHED)
  if (REFRESHING.has(outcome.kind)) await Promise.all(AFTER_PAYMENT_KEYS.map((key) => qc.invalidateQueries({ queryKey: [key] })))
}

/** announce shows the toasts of spec sections 4 and 8 for a stream outcome. */
export function announce(o: StreamOutcome) {
  switch (o.kind) {
    case 'suspended':
      toast.error(SUSPENDED)
      return
    case 'not-fan':
      toast.info(o.message)
      return
    case 'rejected':
      toast.info(`Stream recorded: ${o.reason}`)
      return
    case 'counted':
      toast.success('Stream counted!')
      return
    case 'sponsored': {
      const amount = `₦${o.amount || STREAM_PAYMENT}`
      toast.success('Sponsored stream counted!')
      setTimeout(() => toast.success(`${amount} credited to artist from sponsor!`), 1000)
      setTimeout(() => toast.info(`${amount} was automatically transferred from the sponsor to the artist's wallet.`, { duration: 6000 }), 3500)
      return
    }
    case 'payment-failed':
      toast.error('Stream counted but sponsor payment failed', { description: o.error })
      return
    case 'not-eligible':
      toast.info(`Stream not eligible for sponsored payment: ${o.reason}`)
      return
    case 'error':
      toast.error(o.message)
      return
    case 'limit-reached':
      return
  }
}
