import { useEffect, useEffectEvent, useState } from 'react'
import { useQueryClient, type QueryKey } from '@tanstack/react-query'
import type { RealtimeChannel, RealtimePostgresChangesPayload } from '@supabase/supabase-js'
import { supabase, type Client } from '@/lib/supabase'

// The one place the app subscribes to table changes. A page names the
// table, a filter on the signed-in user's own rows and the caches those rows
// feed; changes refetch the caches. Realtime sends a change only to
// subscribers whose row-level security lets them read the row, and only for
// tables in the supabase_realtime publication (sql/app/0016). The channels
// are private: only signed-in users who are not suspended join them
// (sql/app/0030), and suspending a user closes the ones they hold.

/** LiveEvent is the kind of change a subscription follows. */
export type LiveEvent = '*' | 'INSERT' | 'UPDATE' | 'DELETE'

/** LiveChange is one change as realtime delivers it. */
export type LiveChange = RealtimePostgresChangesPayload<Record<string, unknown>>

/** LiveSpec is what one subscription follows; name (default the table) labels its channel. */
export interface LiveSpec {
  table: string
  filter: string
  event?: LiveEvent
  name?: string
}

/** LiveHandlers are openLiveTable's callbacks. */
export interface LiveHandlers {
  /** onChange sees each change as it arrives (to patch a cache). */
  onChange?: (change: LiveChange) => void
  /** refresh refetches: once per burst of changes, and after a rejoin (changes made while the socket was away are not replayed). */
  refresh: () => void
  /** busy holds a refresh back while it returns true: a fetch in flight may have read the row before the change. */
  busy?: () => boolean
  /** onLive reports whether the subscription is joined. */
  onLive?: (live: boolean) => void
}

/** LiveClient is the part of the supabase client openLiveTable uses. */
export type LiveClient = Pick<Client, 'channel' | 'removeChannel'> & { realtime: Pick<Client['realtime'], 'setAuth'> }

/** REFRESH_DELAY_MS gathers the changes of one transaction (a stream moves two wallets) into one refetch. */
export const REFRESH_DELAY_MS = 250

/** REJOIN_DELAY_MS is how long after the server closed a channel (a suspension, an expired session) it is opened again; a refused join is then retried by supabase-js itself. */
export const REJOIN_DELAY_MS = 1000

// The browser journeys read which live channels the client holds joined
// (the client's own list, so a channel left behind would show).
declare global {
  interface Window {
    __backlineLive?: () => string[]
  }
}
if (typeof window !== 'undefined') {
  window.__backlineLive = () =>
    supabase()
      .getChannels()
      .filter((c) => c.state === 'joined')
      .map((c) => c.topic.replace(/^realtime:/, ''))
      .filter((t) => t.startsWith('live:'))
}

let seq = 0

/**
 * openLiveTable joins a channel for one table's changes and returns the
 * function that leaves it. Each channel gets its own topic: supabase-js
 * hands back an existing channel for a repeated topic, and two pages
 * sharing one would remove it from under each other. A channel the server closes is
 * opened again after REJOIN_DELAY_MS: supabase-js does not rejoin after a
 * close, only after an error, and a suspended user's refused join is such
 * an error, retried until the suspension is lifted.
 */
export function openLiveTable(sb: LiveClient, spec: LiveSpec, h: LiveHandlers, refreshOnChange = true): () => void {
  let channel: RealtimeChannel | undefined
  let closed = false
  let joined = false
  let live = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let rejoin: ReturnType<typeof setTimeout> | undefined
  const setLive = (v: boolean) => {
    if (v === live) return
    live = v
    h.onLive?.(v)
  }
  function schedule() {
    if (!timer && !closed) timer = setTimeout(flush, REFRESH_DELAY_MS)
  }
  function flush() {
    timer = undefined
    if (closed) return
    if (h.busy?.()) schedule()
    else h.refresh()
  }
  // Row-level security and the channel's policies read the token the join
  // carries: hand the socket the user's session first, or a join right
  // after sign-in may carry the anon key (and a private channel refuses it).
  function open() {
    void sb.realtime
      .setAuth()
      .catch(() => undefined)
      .then(() => {
        if (closed) return
        const ch = sb.channel(`live:${spec.name ?? spec.table}:${++seq}`, { config: { private: true } })
        channel = ch
        ch.on('postgres_changes', { event: spec.event ?? '*', schema: 'public', table: spec.table, filter: spec.filter }, (change: LiveChange) => {
          if (closed) return
          h.onChange?.(change)
          if (refreshOnChange) schedule()
        }).subscribe((status) => {
          if (closed || channel !== ch) return
          if (status === 'CLOSED') {
            // Closed by the server: open a new channel in a moment.
            setLive(false)
            channel = undefined
            void sb.removeChannel(ch)
            rejoin = setTimeout(open, REJOIN_DELAY_MS)
            return
          }
          if (status !== 'SUBSCRIBED') {
            setLive(false)
            return
          }
          // Back after a drop: what changed meanwhile was not replayed.
          if (joined) schedule()
          joined = true
          setLive(true)
        })
      })
  }
  open()
  return () => {
    closed = true
    clearTimeout(timer)
    clearTimeout(rejoin)
    if (channel) void sb.removeChannel(channel)
  }
}

/** LiveOptions tune useLiveTable. */
export interface LiveOptions {
  event?: LiveEvent
  name?: string
  onChange?: (change: LiveChange) => void
  /** refreshOnChange: false when onChange patches the cache itself; the keys are then refetched only after a rejoin. */
  refreshOnChange?: boolean
}

/**
 * useLiveTable follows changes to a table's rows matching filter (for
 * example `user_id=eq.<id>`) while the component is mounted, and refetches
 * queryKeys (prefixes) when they happen. No filter, no subscription: every
 * page follows its user's own rows. It returns whether the subscription is
 * live.
 */
export function useLiveTable(table: string, filter: string | undefined, queryKeys: QueryKey[], opts: LiveOptions = {}): boolean {
  const qc = useQueryClient()
  const [live, setLive] = useState(false)
  const { event, name, refreshOnChange = true } = opts
  const onChange = useEffectEvent((change: LiveChange) => opts.onChange?.(change))
  const refresh = useEffectEvent(() => {
    for (const queryKey of queryKeys) void qc.invalidateQueries({ queryKey })
  })
  const busy = useEffectEvent(() => queryKeys.some((queryKey) => qc.isFetching({ queryKey }) > 0))
  useEffect(() => {
    if (!filter) return
    const close = openLiveTable(supabase(), { table, filter, event, name }, { onChange, refresh, busy, onLive: setLive }, refreshOnChange)
    return () => {
      close()
      setLive(false)
    }
  }, [table, filter, event, name, refreshOnChange])
  return live && !!filter
}
