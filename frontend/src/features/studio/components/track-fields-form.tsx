import { FormField } from '@/components/form-field'
import { Input } from '@/components/ui/input'
import { Textarea } from '@/components/ui/textarea'
import { GENRES, type TrackFields } from '../api/tracks'

/** TrackFieldsForm edits title, genre, explicit, release date and description. */
export function TrackFieldsForm({
  value,
  onChange,
  errors,
  disabled,
}: {
  value: TrackFields
  onChange: (v: TrackFields) => void
  errors: Record<string, string>
  disabled?: boolean
}) {
  const set = <K extends keyof TrackFields>(k: K, v: TrackFields[K]) => onChange({ ...value, [k]: v })
  return (
    <>
      <FormField id="track-title" label="Title" error={errors.title}>
        <Input id="track-title" value={value.title} maxLength={200} disabled={disabled} onChange={(e) => set('title', e.target.value)} />
      </FormField>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <FormField id="track-genre" label="Genre">
          <select
            id="track-genre"
            className="h-9 rounded-md border border-border bg-background px-3 text-sm"
            value={value.genre}
            disabled={disabled}
            onChange={(e) => set('genre', e.target.value)}
          >
            <option value="">Choose a genre</option>
            {GENRES.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </FormField>
        <FormField id="track-release" label="Release date">
          <Input id="track-release" type="date" value={value.release_date ?? ''} disabled={disabled} onChange={(e) => set('release_date', e.target.value || null)} />
        </FormField>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={value.is_explicit} disabled={disabled} onChange={(e) => set('is_explicit', e.target.checked)} /> Explicit lyrics
      </label>
      <FormField id="track-description" label="Description">
        <Textarea id="track-description" value={value.description} maxLength={2000} disabled={disabled} onChange={(e) => set('description', e.target.value)} />
      </FormField>
    </>
  )
}
