import { useState } from 'react'
import { Link } from 'react-router'
import { HardDriveDownload, Pause, Play, Trash2 } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { SafeImage } from '@/components/safe-image'
import { formatBytes, MB } from '@/lib/data-saver'
import { formatDuration } from '@/lib/format'
import { removeDownload } from '@/lib/offline'
import { useOfflineStore, usedBytes } from '@/stores/offline-store'
import { usePlayerStore } from '@/stores/player-store'
import { useSettingsStore } from '@/stores/settings-store'

/** MIN_LIMIT_MB is the smallest download limit a fan may set. */
const MIN_LIMIT_MB = 50

function Settings() {
  const { dataSaver, offlineLimitMb, setDataSaver, setOfflineLimitMb } = useSettingsStore()
  const [limit, setLimit] = useState(String(offlineLimitMb))
  return (
    <section aria-label="Settings" className="mt-6 grid grid-cols-1 gap-4 rounded-xl border border-border bg-card p-4 md:grid-cols-2">
      <label className="flex items-start gap-3">
        <input type="checkbox" className="mt-1 size-4 accent-primary" checked={dataSaver} onChange={(e) => setDataSaver(e.target.checked)} aria-label="Data saver" />
        <span>
          <span className="font-medium">Data saver</span>
          <span className="block text-sm text-muted-foreground">No autoplay of previews, smaller covers, and downloads on Wi-Fi only where your browser tells.</span>
        </span>
      </label>
      <form
        className="grid grid-cols-1 gap-1"
        onSubmit={(e) => {
          e.preventDefault()
          const mb = Math.round(Number(limit))
          if (!Number.isFinite(mb) || mb < MIN_LIMIT_MB) return toast.error(`The limit must be at least ${MIN_LIMIT_MB} MB`)
          setOfflineLimitMb(mb)
          toast.success(`Downloads are limited to ${mb} MB`)
        }}
      >
        <Label htmlFor="offline-limit">Space for downloads (MB)</Label>
        <div className="flex gap-2">
          <Input id="offline-limit" type="number" inputMode="numeric" min={MIN_LIMIT_MB} value={limit} onChange={(e) => setLimit(e.target.value)} className="w-32" />
          <Button type="submit" variant="outline">
            Save
          </Button>
        </div>
      </form>
    </section>
  )
}

/**
 * OfflinePage is the Offline library: the tracks kept on this device, the
 * space they take against the fan's limit, removal, and the data saver. It
 * needs no network (the installed app starts here when offline), and plays
 * from it with no network are never counted as streams.
 */
export default function OfflinePage() {
  const downloads = useOfflineStore((s) => s.downloads)
  const limitMb = useSettingsStore((s) => s.offlineLimitMb)
  const current = usePlayerStore((s) => s.currentTrack?.id)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const tracks = downloads.map((d) => d.track)
  const used = usedBytes(downloads)
  return (
    <div>
      <h1 className="flex items-center gap-2 text-3xl font-bold">
        <HardDriveDownload /> Offline library
      </h1>
      <p className="text-muted-foreground" data-testid="offline-space">
        {downloads.length} {downloads.length === 1 ? 'track' : 'tracks'} · {formatBytes(used)} of {limitMb} MB used
      </p>
      <div className="mt-2 h-2 w-full max-w-md overflow-hidden rounded-full bg-muted" role="progressbar" aria-label="Space used" aria-valuenow={Math.round((used / (limitMb * MB)) * 100)}>
        <div className="h-full bg-primary" style={{ width: `${Math.min(100, (used / (limitMb * MB)) * 100)}%` }} />
      </div>
      <p className="mt-2 text-sm text-muted-foreground">Plays without a connection are not counted as streams and pay no one.</p>
      <Settings />
      <ol className="mt-6 grid grid-cols-1 gap-2">
        {downloads.map((d, i) => {
          const t = d.track
          const playing = current === t.id && isPlaying
          return (
            <li key={t.id} className="flex min-w-0 items-center gap-3 rounded-xl border border-border bg-card p-2 pr-3" data-testid="offline-track">
              <SafeImage src={t.coverUrl} alt="" size={48} className="size-12 rounded-md object-cover" />
              <div className="min-w-0 flex-1">
                <p className="truncate font-semibold">{t.title}</p>
                <p className="truncate text-sm text-muted-foreground">
                  {t.artist} · {formatBytes(d.bytes)}
                </p>
              </div>
              <span className="hidden text-sm text-muted-foreground sm:block">{formatDuration(t.duration)}</span>
              <Button variant="ghost" size="icon" aria-label={`Remove ${t.title}`} onClick={() => void removeDownload(t.id).then(() => toast.success(`${t.title} removed from this device`))}>
                <Trash2 />
              </Button>
              <button type="button" onClick={() => usePlayerStore.getState().playFrom(tracks, i)} className="rounded-full bg-primary p-2 text-white" aria-label={playing ? `Pause ${t.title}` : `Play ${t.title}`}>
                {playing ? <Pause className="size-4" /> : <Play className="size-4" />}
              </button>
            </li>
          )
        })}
      </ol>
      {downloads.length === 0 && (
        <div className="grid grid-cols-1 justify-items-center gap-3 py-16 text-center text-muted-foreground">
          <p>Nothing downloaded yet. Signed in as a fan, choose Download from a track's menu or a playlist.</p>
          <Button asChild>
            <Link to="/charts">Browse the charts</Link>
          </Button>
        </div>
      )}
    </div>
  )
}
