import { useEffect, useRef, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { FileAudio, ImageIcon, Pause, Play, Upload } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { formatDuration } from '@/lib/format'
import { refreshMoney } from '@/lib/money-cache'
import { createTrack, uploadCover, type TrackFields } from '../api/tracks'
import { uploadAudio, type AudioUpload } from '../api/upload-audio'
import { AUDIO_TYPES, audioObjectName, COVER_TYPES, fileProblem, lengthNote, MAX_AUDIO_BYTES, MAX_COVER_BYTES, readAudioDuration } from '../lib/media'
import { FileDrop } from './file-drop'
import { TrackFieldsForm } from './track-fields-form'

const empty: TrackFields = { title: '', genre: '', is_explicit: false, release_date: null, description: '' }

/** UploadTrackDialog uploads audio (resumable, with progress) and a cover, then creates the track. */
export function UploadTrackDialog({ userId }: { userId: string }) {
  const qc = useQueryClient()
  const [open, setOpen] = useState(false)
  const [fields, setFields] = useState<TrackFields>(empty)
  const [audio, setAudio] = useState<File | null>(null)
  const [cover, setCover] = useState<File | null>(null)
  // The audio's length as the browser reads it (undefined while reading), and the cover's preview.
  const [length, setLength] = useState<number | null | undefined>(undefined)
  const [coverUrl, setCoverUrl] = useState<string | null>(null)
  const picked = useRef<File | null>(null)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [progress, setProgress] = useState<number | null>(null)
  const [paused, setPaused] = useState(false)
  const [busy, setBusy] = useState(false)
  const running = useRef<AudioUpload | null>(null)

  const pickAudio = (f: File | null) => {
    picked.current = f
    setAudio(f)
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'audio')))
    setLength(undefined)
    // A later pick wins over a read still running for an earlier one.
    if (f) void readAudioDuration(f).then((d) => picked.current === f && setLength(d))
  }
  const pickCover = (f: File | null) => {
    setCover(f)
    setCoverUrl(f && !fileProblem(f, COVER_TYPES, MAX_COVER_BYTES, 'image') ? URL.createObjectURL(f) : null)
  }
  // A preview's object URL is let go once another replaces it, or with the dialog.
  useEffect(() => () => void (coverUrl && URL.revokeObjectURL(coverUrl)), [coverUrl])
  const reset = () => {
    setFields(empty)
    pickAudio(null)
    pickCover(null)
    setErrors({})
    setProgress(null)
    setPaused(false)
  }
  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!fields.title.trim()) errs.title = 'Enter a title'
    if (!audio) errs.audio = 'Choose an audio file'
    else errs.audio = fileProblem(audio, AUDIO_TYPES, MAX_AUDIO_BYTES, 'audio file') ?? ''
    if (cover) errs.cover = fileProblem(cover, COVER_TYPES, MAX_COVER_BYTES, 'image') ?? ''
    for (const k of Object.keys(errs)) if (!errs[k]) delete errs[k]
    setErrors(errs)
    if (Object.keys(errs).length > 0 || !audio) return
    setBusy(true)
    try {
      const object = audioObjectName(userId, audio)
      setProgress(0)
      running.current = await uploadAudio(audio, object, setProgress)
      await running.current.done
      const coverUrl = cover ? await uploadCover(userId, cover) : null
      await createTrack(userId, fields, object, coverUrl)
      toast.success('Track uploaded', { description: `"${fields.title.trim()}" is live.` })
      refreshMoney(qc)
      reset()
      setOpen(false)
    } catch (err) {
      toast.error('Upload failed', { description: err instanceof Error ? err.message : 'Please try again.' })
    } finally {
      running.current = null
      setBusy(false)
    }
  }
  const togglePause = () => {
    if (!running.current) return
    if (paused) running.current.resume()
    else running.current.pause()
    setPaused(!paused)
  }
  const pct = Math.round((progress ?? 0) * 100)
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (busy && !o) return
        setOpen(o)
      }}
    >
      <DialogTrigger asChild>
        <Button>
          <Upload /> Upload track
        </Button>
      </DialogTrigger>
      <DialogContent className="max-h-[90vh] overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Upload a track</DialogTitle>
          <DialogDescription>MP3, WAV, FLAC, Ogg or M4A up to 50 MB. The length is read from the file on our side.</DialogDescription>
        </DialogHeader>
        <form onSubmit={(e) => void submit(e)} className="grid grid-cols-1 gap-3" noValidate>
          <FormField id="track-audio" label="Audio file" error={errors.audio}>
            <FileDrop id="track-audio" accept={AUDIO_TYPES} disabled={busy} invalid={!!errors.audio} onFile={pickAudio} prompt={audio ? 'Drop another file or tap to change it' : 'Drop the audio file here, or tap to browse'}>
              {audio ? (
                <span className="flex max-w-full items-center gap-2 text-foreground" data-testid="audio-chosen">
                  <FileAudio className="size-5 shrink-0 text-primary" />
                  <span className="min-w-0">
                    <span className="block truncate font-medium">{audio.name}</span>
                    <span className="block text-xs text-muted-foreground">
                      {(audio.size / 1024 / 1024).toFixed(1)} MB ·{' '}
                      <span data-testid="audio-length">{length === undefined ? 'reading its length…' : length === null ? 'length unknown' : formatDuration(length)}</span>
                    </span>
                  </span>
                </span>
              ) : (
                <FileAudio className="size-8" />
              )}
            </FileDrop>
            {audio && length !== undefined && lengthNote(length) && <p className="text-xs text-amber-400">{lengthNote(length)}</p>}
          </FormField>
          <FormField id="track-cover" label="Cover image (optional)" error={errors.cover}>
            <FileDrop id="track-cover" accept={COVER_TYPES} disabled={busy} invalid={!!errors.cover} onFile={pickCover} prompt={cover ? 'Drop another image or tap to change it' : 'Drop a JPEG, PNG or WebP here, or tap to browse'}>
              {coverUrl ? <img src={coverUrl} alt="Cover preview" className="size-28 rounded-lg object-cover" /> : cover ? <span className="text-foreground">{cover.name}</span> : <ImageIcon className="size-8" />}
            </FileDrop>
          </FormField>
          <TrackFieldsForm value={fields} onChange={setFields} errors={errors} disabled={busy} />
          {progress !== null && (
            <div className="grid grid-cols-1 gap-1" data-testid="upload-progress">
              <div
                className="h-2 overflow-hidden rounded-full bg-muted"
                role="progressbar"
                aria-label="Upload progress"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={pct}
              >
                <div className="h-full bg-primary transition-[width]" style={{ width: `${pct}%` }} />
              </div>
              <div className="flex items-center justify-between text-xs text-muted-foreground">
                <span>{pct < 100 ? `Uploading… ${pct}%` : 'Uploaded, saving…'}</span>
                {pct < 100 && (
                  <Button type="button" size="sm" variant="ghost" onClick={togglePause}>
                    {paused ? <Play /> : <Pause />} {paused ? 'Resume' : 'Pause'}
                  </Button>
                )}
              </div>
            </div>
          )}
          <Button type="submit" disabled={busy}>
            {busy ? 'Uploading…' : 'Upload'}
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}

