import { infiniteQueryOptions, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query'
import { toast } from 'sonner'
import type { Database } from '@/lib/database.types'
import { nextPageParam, PAGE_SIZE } from '../lib/keyset'

/** Fns are the database functions the typed client can call. */
type Fns = Database['public']['Functions']

/** RowOf is one row of a set-returning admin function. */
export type RowOf<N extends keyof Fns> = Fns[N]['Returns'] extends (infer R)[] ? R : never

/** ADMIN_KEY prefixes every admin query key, so one invalidation refreshes the dashboard after an action. */
export const ADMIN_KEY = 'admin'

/** unwrap returns an rpc's data or throws its error (supabase-js returns errors instead of throwing). */
export function unwrap<T>(res: { data: T | null; error: { message: string } | null }): T {
  if (res.error) throw res.error
  return res.data as T
}

/**
 * keysetList builds the infinite query of a keyset list: each page is
 * fetched with the previous page's last row as its cursor.
 */
export function keysetList<Row>(key: readonly unknown[], fetchPage: (after: Row | null) => Promise<Row[]>) {
  return infiniteQueryOptions<Row[], Error, InfiniteData<Row[], Row | null>, readonly unknown[], Row | null>({
    queryKey: [ADMIN_KEY, ...key],
    initialPageParam: null,
    queryFn: ({ pageParam }) => fetchPage(pageParam as Row | null),
    getNextPageParam: (last: Row[]) => nextPageParam(last, PAGE_SIZE),
  })
}

/** errorMessage is the text of an rpc refusal (the database words them for people). */
export function errorMessage(e: unknown): string {
  return e && typeof e === 'object' && 'message' in e ? String((e as { message: unknown }).message) : 'Something went wrong'
}

/**
 * useAdminAction runs an admin function, toasts the outcome and refreshes
 * every admin list. A refusal keeps its database message.
 */
export function useAdminAction<V>(run: (vars: V) => Promise<unknown>, success: string | ((vars: V) => string)) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: run,
    // An action is not retried: a second attempt would meet "already done".
    retry: 0,
    onSuccess: (_data, vars) => {
      toast.success(typeof success === 'string' ? success : success(vars))
      void qc.invalidateQueries({ queryKey: [ADMIN_KEY] })
    },
    onError: (e) => toast.error(errorMessage(e)),
  })
}
