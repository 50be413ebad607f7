import { useSessionHeartbeat } from '@/features/auth/hooks/use-session-heartbeat'
import { useOnlinePresence } from '@/hooks/use-online-presence'
import { useSuspensionUpdates } from '@/hooks/use-suspension'

/**
 * SignedInEffects runs what the shell does for a signed-in user only: the
 * session heartbeat, the online presence and the live suspension updates. Its code loads after the
 * first paint, and not at all for visitors.
 */
export default function SignedInEffects({ userId, settled, recorded }: { userId: string; settled: boolean; recorded: boolean }) {
  // The heartbeat starts with the shell's bootstrap, which beat once already.
  useSessionHeartbeat(settled ? userId : undefined, recorded)
  useOnlinePresence(userId)
  useSuspensionUpdates(userId)
  return null
}
