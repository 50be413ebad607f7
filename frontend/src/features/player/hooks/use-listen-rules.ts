import { useEffect, useEffectEvent, useRef } from 'react'
import { useNavigate } from 'react-router'
import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { useAuthStore } from '@/lib/auth'
import { deviceId } from '@/lib/device-id'
import { supabase, type Client } from '@/lib/supabase'
import { usePlayerStore } from '@/stores/player-store'
import { AFTER_PAYMENT_KEYS, MIN_LISTEN_SECONDS, recordStream, STREAM_PAYMENT, streamsRemaining, type StreamContext, type StreamOutcome } from '../api/record-stream'

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

  const stopForLimit = (message: string) => {
    limitReached.current = true
    const { setPlaying, clear } = usePlayerStore.getState()
    setPlaying(false)
    toast.warning(message)
    setTimeout(() => clear(), 1000)
  }

  // settle records the stream once the play reached 30 s and announces the outcome.
  const settle = (seconds: number) => {
    if (!user || !track) return
    void settleStream(supabase(), qc, { userId: user.id, role, track, seconds, sessionId: deviceId() }, stopForLimit)
  }

  // Per play: reset counters, open the server-side play session, check the fan allowance.
  const onPlayStart = useEffectEvent(() => {
    listened.current = 0
    recorded.current = false
    limitReached.current = false
    if (!track || !user) return
    const sb = supabase()
    void sb.rpc('start_play', { p_track_id: track.id }).then(({ error }) => error && console.warn('start_play', error.message))
    if (role === 'fan') {
      void streamsRemaining(sb, user.id).then((n) => {
        qc.setQueryData(['dailyStreamLimit', user.id], n)
        if (n <= 0) stopForLimit(`Daily stream limit reached! You have ${n} streams remaining today.`)
      })
    }
  })
  const userId = user?.id
  useEffect(() => {
    onPlayStart()
  }, [playId, userId])

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
        return
      }
      if (user && seconds >= MIN_LISTEN_SECONDS && !recorded.current && !limitReached.current) {
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

/** REFRESHING are the outcomes after which a stream was counted and money may have moved. */
const REFRESHING: ReadonlySet<StreamOutcome['kind']> = new Set(['counted', 'sponsored', 'payment-failed', 'not-eligible'])

/**
 * settleStream is what happens when a play reaches 30 s: a fan's allowance is
 * checked again (none left stops playback through stopForLimit), the stream is
 * recorded, its outcome announced, and after a counted stream every cache the
 * spec lists is refreshed.
 */
export async function settleStream(sb: Client, qc: QueryClient, ctx: StreamContext, stopForLimit: (message: string) => void): Promise<void> {
  if (ctx.role === 'fan') {
    const n = await streamsRemaining(sb, ctx.userId)
    if (n <= 0) {
      stopForLimit(`Daily stream limit reached! You have ${n} streams remaining today.`)
      return
    }
  }
  let outcome: StreamOutcome
  try {
    outcome = await recordStream(sb, ctx)
  } catch (e) {
    console.error('record stream', e)
    toast.error('An unexpected error occurred while processing your stream')
    return
  }
  announce(outcome)
  if (outcome.kind === 'limit-reached') stopForLimit('Daily stream limit reached!')
  if (REFRESHING.has(outcome.kind)) await Promise.all(AFTER_PAYMENT_KEYS.map((key) => qc.invalidateQueries({ queryKey: [key] })))
}

/** announce shows the toasts of spec sections 4 and 8 for a stream outcome. */
export function announce(o: StreamOutcome) {
  switch (o.kind) {
    case 'suspended':
      toast.error('User is suspended and cannot generate valid streams')
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
