import { QueryClient, type DefaultOptions } from '@tanstack/react-query'

// Cache profiles of spec section 9 (stale / kept).
const min = 60_000

/** cacheProfiles are spread into queryOptions by the api/ modules. */
export const cacheProfiles = {
  static: { staleTime: 5 * min, gcTime: 15 * min },
  dynamic: { staleTime: 1 * min, gcTime: 5 * min },
  realtime: { staleTime: 15_000, gcTime: 1 * min },
  critical: { staleTime: 0, gcTime: 30_000 },
} as const

/** backoff doubles from 1 s up to 30 s. */
export const backoff = (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000)

const defaults: DefaultOptions = {
  queries: {
    ...cacheProfiles.dynamic,
    retry: 2,
    retryDelay: backoff,
    refetchOnWindowFocus: false,
    networkMode: 'online',
  },
  mutations: { retry: 1, retryDelay: backoff, networkMode: 'online' },
}

/** queryClient is the app's single TanStack Query client. */
export const queryClient = new QueryClient({ defaultOptions: defaults })
