import { useState } from 'react'
import { Link } from 'react-router'
import { Megaphone, Pencil, Trash2 } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { DataTable, type DataColumn } from '@/components/ui/data-table'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Textarea } from '@/components/ui/textarea'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'
import { abbreviateNumber, formatDuration, formatNaira } from '@/lib/format'
import { COVER_TYPES, fileProblem, MAX_COVER_BYTES } from '../lib/media'
import { uploadCover, useDeleteTrack, usePitchTrack, useSponsors, useUpdateTrack, type TrackFields } from '../api/tracks'
import { TrackFieldsForm } from './track-fields-form'

/** StudioTrack is what the tracks table shows of a track. */
export interface StudioTrack {
  id: string
  title: string
  genre: string | null
  duration: number | null
  release_date: string | null
  description: string | null
  is_explicit: boolean
  is_sponsored: boolean
  sponsor_id: string | null
  sponsor_name: string | null
  streams_valid: number
  streams_all: number
  earnings: number
}

/** SPONSORED_PITCH_TOOLTIP tells the artist why a sponsored track cannot be pitched (spec section 2, cards). */
export const SPONSORED_PITCH_TOOLTIP = 'This track is already sponsored and cannot be pitched to other sponsors'

function EditDialog({ userId, track, onClose }: { userId: string; track: StudioTrack; onClose: () => void }) {
  const update = useUpdateTrack()
  const [fields, setFields] = useState<TrackFields>({
    title: track.title,
    genre: track.genre ?? '',
    is_explicit: track.is_explicit,
    release_date: track.release_date,
    description: track.description ?? '',
  })
  const [cover, setCover] = useState<File | null>(null)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const save = async (e: React.FormEvent) => {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!fields.title.trim()) errs.title = 'Enter a title'
    const bad = cover && fileProblem(cover, COVER_TYPES, MAX_COVER_BYTES, 'image')
    if (bad) errs.cover = bad
    setErrors(errs)
    if (Object.keys(errs).length) return
    try {
      const coverUrl = cover ? await uploadCover(userId, cover) : undefined
      await update.mutateAsync({ id: track.id, fields, coverUrl })
      toast.success('Track updated')
      onClose()
    } catch (err) {
      toast.error('Could not save', { description: err instanceof Error ? err.message : undefined })
    }
  }
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="max-h-[90vh] overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Edit track</DialogTitle>
        </DialogHeader>
        <form onSubmit={(e) => void save(e)} className="grid grid-cols-1 gap-3" noValidate>
          <TrackFieldsForm value={fields} onChange={setFields} errors={errors} />
          <FormField id="edit-cover" label="New cover (optional)" error={errors.cover}>
            <Input id="edit-cover" type="file" accept={COVER_TYPES.join(',')} onChange={(e) => setCover(e.target.files?.[0] ?? null)} />
          </FormField>
          <Button type="submit" disabled={update.isPending}>
            Save
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}

function PitchDialog({ userId, track, onClose }: { userId: string; track: StudioTrack; onClose: () => void }) {
  const sponsors = useSponsors(true)
  const pitch = usePitchTrack(userId)
  const [sponsorId, setSponsorId] = useState('')
  const [text, setText] = useState('')
  const send = () =>
    pitch.mutate(
      { trackId: track.id, sponsorId, pitch: text },
      {
        onSuccess: () => {
          toast.success('Pitch sent', { description: 'The sponsor has been notified.' })
          onClose()
        },
        onError: (e) => toast.error('Could not send the pitch', { description: e.message }),
      },
    )
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Pitch "{track.title}"</DialogTitle>
          <DialogDescription>Ask a sponsor to back this track. They can accept or decline.</DialogDescription>
        </DialogHeader>
        <FormField id="pitch-sponsor" label="Sponsor">
          <select id="pitch-sponsor" className="h-9 rounded-md border border-border bg-background px-3 text-sm" value={sponsorId} onChange={(e) => setSponsorId(e.target.value)}>
            <option value="">Choose a sponsor</option>
            {(sponsors.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.company_name || s.name || 'Sponsor'}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id="pitch-text" label="Your pitch">
          <Textarea id="pitch-text" value={text} maxLength={1000} onChange={(e) => setText(e.target.value)} placeholder="Why should they back this track?" />
        </FormField>
        <DialogFooter>
          <Button onClick={send} disabled={!sponsorId || pitch.isPending}>
            Send pitch
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

/** MyTracks is the artist's tracks table: streams (valid/all), earnings, sponsor, and actions. */
export function MyTracks({ userId, tracks }: { userId: string; tracks: StudioTrack[] }) {
  const [editing, setEditing] = useState<StudioTrack | null>(null)
  const [pitching, setPitching] = useState<StudioTrack | null>(null)
  const [deleting, setDeleting] = useState<StudioTrack | null>(null)
  const del = useDeleteTrack()
  const columns: DataColumn<StudioTrack>[] = [
    {
      header: 'Track',
      priority: 1,
      width: 180,
      cell: (t) => (
        <>
          <p className="font-medium">{t.title}</p>
          <p className="text-xs text-muted-foreground">
            {[t.genre, t.duration ? formatDuration(t.duration) : 'Measuring length…', t.is_explicit ? 'Explicit' : null].filter(Boolean).join(' · ')}
          </p>
        </>
      ),
    },
    {
      header: 'Streams (valid / all)',
      priority: 3,
      width: 110,
      className: 'text-right tabular-nums',
      cell: (t) => `${abbreviateNumber(t.streams_valid)} / ${abbreviateNumber(t.streams_all)}`,
    },
    { header: 'Earnings', priority: 2, width: 100, className: 'text-right tabular-nums', cell: (t) => formatNaira(Number(t.earnings)) },
    {
      header: 'Sponsor',
      priority: 4,
      width: 130,
      cell: (t) =>
        t.is_sponsored && t.sponsor_id ? (
          <Link className="text-amber-400 hover:underline" to={`/profile/${t.sponsor_id}`}>
            {t.sponsor_name ?? 'Sponsor'}
          </Link>
        ) : (
          <span className="text-muted-foreground">—</span>
        ),
    },
    {
      header: 'Actions',
      action: true,
      width: 170,
      cell: (t) => (
        <div className="flex flex-wrap justify-end gap-1">
          {t.is_sponsored ? (
            <Tooltip>
              <TooltipTrigger asChild>
                {/* A disabled button fires no pointer events; the span carries the tooltip. */}
                <span tabIndex={0} aria-label={SPONSORED_PITCH_TOOLTIP}>
                  <Button size="sm" variant="ghost" disabled aria-hidden>
                    <Megaphone /> Pitch
                  </Button>
                </span>
              </TooltipTrigger>
              <TooltipContent>{SPONSORED_PITCH_TOOLTIP}</TooltipContent>
            </Tooltip>
          ) : (
            <Button size="sm" variant="ghost" onClick={() => setPitching(t)}>
              <Megaphone /> Pitch
            </Button>
          )}
          <Button size="icon" variant="ghost" aria-label={`Edit ${t.title}`} onClick={() => setEditing(t)}>
            <Pencil />
          </Button>
          <Button size="icon" variant="ghost" aria-label={`Delete ${t.title}`} onClick={() => setDeleting(t)}>
            <Trash2 />
          </Button>
        </div>
      ),
    },
  ]
  if (tracks.length === 0) return <p className="rounded-xl border border-border p-6 text-center text-muted-foreground">No tracks yet. Upload your first track to start building your audience.</p>
  return (
    <>
      <DataTable testId="artist-tracks" rowTestId="artist-track-row" columns={columns} rows={tracks} rowKey={(t) => t.id} empty="No tracks yet." />
      {editing && <EditDialog userId={userId} track={editing} onClose={() => setEditing(null)} />}
      {pitching && <PitchDialog userId={userId} track={pitching} onClose={() => setPitching(null)} />}
      {deleting && (
        <Dialog open onOpenChange={(o) => !o && setDeleting(null)}>
          <DialogContent>
            <DialogHeader>
              <DialogTitle>Delete "{deleting.title}"?</DialogTitle>
              <DialogDescription>The track, its audio and its cover are removed. Earnings already paid stay in your wallet.</DialogDescription>
            </DialogHeader>
            <DialogFooter>
              <Button variant="outline" onClick={() => setDeleting(null)}>
                Cancel
              </Button>
              <Button
                variant="destructive"
                disabled={del.isPending}
                onClick={() =>
                  del.mutate(deleting.id, {
                    onSuccess: () => {
                      toast.success('Track deleted')
                      setDeleting(null)
                    },
                    onError: (e) => toast.error('Could not delete', { description: e.message }),
                  })
                }
              >
                Delete
              </Button>
            </DialogFooter>
          </DialogContent>
        </Dialog>
      )}
    </>
  )
}
