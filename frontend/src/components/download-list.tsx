import { useState } from 'react'
import { Download } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { useAuthStore } from '@/lib/auth'
import { downloadAll, offlineSupported } from '@/lib/offline'
import type { Track } from '@/types/api'

/** DownloadList keeps every track of a list (a playlist) for offline listening; signed-in fans only. */
export function DownloadList({ name, tracks }: { name: string; tracks: Track[] }) {
  const role = useAuthStore((s) => s.role)
  const [busy, setBusy] = useState(false)
  if (role !== 'fan' || !offlineSupported()) return null
  const run = async () => {
    setBusy(true)
    try {
      await downloadAll(tracks)
      toast.success(`${name} is ready for offline listening`)
    } catch (e) {
      toast.error(e instanceof Error ? e.message : 'Download failed')
    } finally {
      setBusy(false)
    }
  }
  return (
    <Button size="sm" variant="outline" disabled={busy || tracks.length === 0} onClick={() => void run()} aria-label={`Download ${name}`}>
      <Download /> {busy ? 'Downloading…' : 'Download'}
    </Button>
  )
}
