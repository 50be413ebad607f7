import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { OAuthGrant } from '@supabase/supabase-js'
import { supabase } from '@/lib/supabase'

const grantsKey = ['oauthGrants'] as const

/**
 * useConnectedApps lists the apps the signed-in user allowed through
 * Backline's OAuth server, newest first. null: the server is off (its
 * endpoints answer feature_disabled), so there is nothing to show.
 */
export function useConnectedApps() {
  return useQuery({
    queryKey: grantsKey,
    queryFn: async (): Promise<OAuthGrant[] | null> => {
      const { data, error } = await supabase().auth.oauth.listGrants()
      if (error) {
        if ('code' in error && error.code === 'feature_disabled') return null
        throw error
      }
      return data
    },
  })
}

/** useRevokeApp revokes an app's grant: its sessions end at once. */
export function useRevokeApp() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (clientId: string) => {
      const { error } = await supabase().auth.oauth.revokeGrant({ clientId })
      if (error) throw error
    },
    onSettled: () => qc.invalidateQueries({ queryKey: grantsKey }),
  })
}
