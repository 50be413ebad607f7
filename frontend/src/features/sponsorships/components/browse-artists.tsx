import { useState } from 'react'
import { Send } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { Textarea } from '@/components/ui/textarea'
import { useSeen } from '@/hooks/use-seen'
import { abbreviateNumber } from '@/lib/format'
import { useBrowseArtists, useSendInvite, type BrowseArtist } from '../api/invites'

/**
 * InviteDialog sends a sponsor's invite for one of the artist's unsponsored
 * tracks, chosen here (required): accepting it sponsors that track. The
 * database refuses an invite without a track, for another artist's track or
 * for a sponsored one.
 */
function InviteDialog({ sponsorId, artist, trackId, onClose }: { sponsorId: string; artist: BrowseArtist; trackId: string | null; onClose: () => void }) {
  const send = useSendInvite(sponsorId)
  const [pitch, setPitch] = useState('')
  const [chosen, setChosen] = useState(trackId ?? '')
  const track = artist.tracks.find((t) => t.id === chosen)
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Invite {artist.name}</DialogTitle>
          <DialogDescription>{track ? `Offer to sponsor “${track.title}”.` : 'Choose the track you want to sponsor.'} Every valid fan stream then pays ₦50 from your wallet.</DialogDescription>
        </DialogHeader>
        {artist.tracks.length === 0 ? (
          <p className="text-sm text-muted-foreground">{artist.name} has no unsponsored tracks to sponsor right now.</p>
        ) : (
          <FormField id="invite-track" label="Track">
            <select
              id="invite-track"
              required
              value={chosen}
              onChange={(e) => setChosen(e.target.value)}
              className="h-9 w-full rounded-md border border-border bg-background px-2 text-sm"
            >
              <option value="" disabled>
                Choose a track…
              </option>
              {artist.tracks.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.title} · {abbreviateNumber(t.streams)} streams
                </option>
              ))}
            </select>
          </FormField>
        )}
        <FormField id="invite-pitch" label="Your pitch">
          <Textarea id="invite-pitch" value={pitch} maxLength={1000} onChange={(e) => setPitch(e.target.value)} placeholder="Tell the artist why you want to back them" />
        </FormField>
        <DialogFooter>
          <Button
            disabled={send.isPending || !track}
            onClick={() =>
              track &&
              send.mutate(
                { artistId: artist.id, trackId: track.id, pitch },
                {
                  onSuccess: () => {
                    toast.success('Invitation sent', { description: `${artist.name} has been notified.` })
                    onClose()
                  },
                  onError: (e) => toast.error('Could not send the invitation', { description: e.message }),
                },
              )
            }
          >
            <Send /> Send invitation
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

/**
 * BrowseArtists lets a sponsor find artists and unsponsored tracks and
 * invite them. It lists them once it comes into view or a search is typed:
 * on the dashboard it sits below the first screen.
 */
export function BrowseArtists({ sponsorId }: { sponsorId: string }) {
  const [search, setSearch] = useState('')
  const [inviting, setInviting] = useState<{ artist: BrowseArtist; trackId: string | null } | null>(null)
  const [ref, seen] = useSeen<HTMLDivElement>()
  // Not listed yet (out of view) is pending too: it looks like loading, never like "No artists found".
  const { data = [], isPending: isLoading } = useBrowseArtists(seen || search !== '', search)
  return (
    <div ref={ref} className="grid grid-cols-1 gap-3">
      <Input placeholder="Search artists" aria-label="Search artists" value={search} onChange={(e) => setSearch(e.target.value)} className="max-w-sm" />
      {isLoading && <Skeleton className="h-24" />}
      <ul className="grid grid-cols-1 gap-2 md:grid-cols-2" data-testid="browse-artists">
        {data.map((a) => (
          <li key={a.id} className="rounded-xl border border-border bg-card p-3" data-testid="browse-artist">
            <div className="flex items-center justify-between gap-2">
              <div className="min-w-0">
                <p className="truncate font-semibold">{a.name}</p>
                <p className="text-xs text-muted-foreground">{abbreviateNumber(a.stream_count)} streams</p>
              </div>
              <Button size="sm" variant="outline" onClick={() => setInviting({ artist: a, trackId: null })}>
                Invite artist
              </Button>
            </div>
            {a.tracks.length > 0 && (
              <ul className="mt-2 grid grid-cols-1 gap-1 text-sm">
                {a.tracks.slice(0, 5).map((t) => (
                  <li key={t.id} className="flex items-center justify-between gap-2">
                    <span className="min-w-0 truncate">
                      {t.title} <span className="text-xs text-muted-foreground">· {abbreviateNumber(t.streams)} streams</span>
                    </span>
                    <Button size="sm" variant="ghost" aria-label={`Invite for ${t.title}`} onClick={() => setInviting({ artist: a, trackId: t.id })}>
                      Sponsor
                    </Button>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {!isLoading && data.length === 0 && <p className="text-center text-muted-foreground">No artists found</p>}
      {inviting && <InviteDialog sponsorId={sponsorId} artist={inviting.artist} trackId={inviting.trackId} onClose={() => setInviting(null)} />}
    </div>
  )
}
