import { useEffect, useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Download, File, Folder, FolderPlus, Globe, Link2, Lock, Plus, Settings2, Trash2, Upload } from 'lucide-react'
import { api } from '@/lib/api'
import type { Policy } from '@/lib/types'
import { cn, formatBytes } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Label, Select } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { Badge, Card, ErrorText } from '@/components/ui/misc'
import { createBucket, deleteBucket, deleteObjects, download, emptyBucket, listBuckets, listObjects, parseSize, signURL, updateBucket, upload, type Bucket, type Entry } from './objects'
import { SIDE_END, SIDE_START, SPLIT, SPLIT_MAIN, useRevealOnPhone } from '@/lib/layout'

/** Storage lists buckets, browses and changes their objects, and shows the storage policies. */
export default function Storage() {
  const qc = useQueryClient()
  const buckets = useQuery({ queryKey: ['storage', 'buckets'], queryFn: listBuckets })
  const [current, setCurrent] = useState<string | null>(null)
  const [editing, setEditing] = useState<Bucket | 'new' | null>(null)
  const [tab, setTab] = useState<'files' | 'policies'>('files')
  const bucket = buckets.data?.find((b) => b.id === current)
  return (
    <div className={SPLIT}>
      <div className={cn(SIDE_START, 'flex flex-col gap-2 p-3 md:w-60')}>
        <Button onClick={() => setEditing('new')}>
          <Plus /> New bucket
        </Button>
        <ErrorText error={buckets.error} />
        <ul className="grid-scroll -mx-1 flex-1" aria-label="Buckets">
          {(buckets.data ?? []).map((b) => (
            <li key={b.id}>
              <button
                className={cn('flex w-full items-center gap-2 rounded px-2 py-1 text-left', b.id === current ? 'bg-accent' : 'hover:bg-accent/60')}
                onClick={() => (setCurrent(b.id), setTab('files'))}
              >
                {b.public ? <Globe className="size-3.5 text-warning" aria-label="public" /> : <Lock className="size-3.5 text-primary" aria-label="private" />}
                <span className="truncate">{b.name}</span>
              </button>
            </li>
          ))}
          {buckets.data?.length === 0 && <li className="px-2 text-xs text-muted-foreground">No buckets.</li>}
        </ul>
        <Button variant="outline" onClick={() => (setCurrent(null), setTab('policies'))}>
          Storage policies
        </Button>
      </div>
      <div className={SPLIT_MAIN}>
        {tab === 'policies' || !bucket ? (
          tab === 'policies' ? <StoragePolicies /> : <div className="p-6 text-muted-foreground">Choose a bucket.</div>
        ) : (
          <>
            <div className="flex items-center gap-3 px-4 pt-3">
              <h1 className="text-base font-semibold">{bucket.name}</h1>
              {bucket.public ? <Badge tone="warn">public</Badge> : <Badge tone="ok">private</Badge>}
              <span className="text-xs text-muted-foreground">
                {bucket.file_size_limit ? `up to ${formatBytes(bucket.file_size_limit)} a file` : 'no size limit'} · {bucket.allowed_mime_types?.length ? bucket.allowed_mime_types.join(', ') : 'any type'}
              </span>
              <Button className="ml-auto" variant="outline" size="sm" onClick={() => setEditing(bucket)}>
                <Settings2 /> Bucket settings
              </Button>
            </div>
            <Browser key={bucket.id} bucket={bucket} />
          </>
        )}
      </div>
      {editing && (
        <BucketDialog
          bucket={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onDone={(id) => {
            setEditing(null)
            qc.invalidateQueries({ queryKey: ['storage'] })
            setCurrent(id)
          }}
        />
      )}
    </div>
  )
}

function BucketDialog({ bucket, onClose, onDone }: { bucket: Bucket | null; onClose: () => void; onDone: (id: string | null) => void }) {
  const [name, setName] = useState(bucket?.name ?? '')
  const [isPublic, setPublic] = useState(bucket?.public ?? false)
  const [size, setSize] = useState(bucket?.file_size_limit ? String(bucket.file_size_limit) : '')
  const [types, setTypes] = useState(bucket?.allowed_mime_types?.join(', ') ?? '')
  const [confirm, setConfirm] = useState<'empty' | 'delete' | null>(null)
  const save = useMutation({
    mutationFn: async () => {
      const b = { public: isPublic, file_size_limit: parseSize(size), allowed_mime_types: types.trim() ? types.split(',').map((t) => t.trim()).filter(Boolean) : null }
      if (bucket) await updateBucket(bucket.id, b)
      else await createBucket({ name, ...b })
      return bucket?.id ?? name
    },
    onSuccess: onDone,
  })
  const destroy = useMutation({
    mutationFn: async (what: 'empty' | 'delete') => (what === 'empty' ? emptyBucket(bucket!.id) : deleteBucket(bucket!.id)),
    onSuccess: (_, what) => (setConfirm(null), onDone(what === 'delete' ? null : bucket!.id)),
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent title={bucket ? `Bucket ${bucket.name}` : 'New bucket'} description="Anyone can read a public bucket's files by URL; a private bucket's go through its policies or a signed URL.">
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault()
            save.mutate()
          }}
        >
          {!bucket && (
            <Label className="flex flex-col gap-1">
              Name
              <Input required autoFocus value={name} onChange={(e) => setName(e.target.value)} />
            </Label>
          )}
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public bucket
          </label>
          <Label className="flex flex-col gap-1">
            File size limit (bytes, KB, MB or GB; empty for none)
            <Input value={size} placeholder="e.g. 50 MB" onChange={(e) => setSize(e.target.value)} />
          </Label>
          <Label className="flex flex-col gap-1">
            Allowed MIME types (comma-separated; empty for any)
            <Input value={types} placeholder="image/*, audio/mpeg" onChange={(e) => setTypes(e.target.value)} />
          </Label>
          <ErrorText error={save.error} />
          <div className="flex gap-2">
            {bucket && (
              <>
                <Button type="button" variant="outline" onClick={() => setConfirm('empty')}>
                  Empty bucket
                </Button>
                <Button type="button" variant="destructive" onClick={() => setConfirm('delete')}>
                  Delete bucket
                </Button>
              </>
            )}
            <Button className="ml-auto" type="submit" disabled={save.isPending}>
              {bucket ? 'Save' : 'Create bucket'}
            </Button>
          </div>
        </form>
        {confirm && (
          <ConfirmDialog
            open
            title={confirm === 'empty' ? `Empty ${bucket!.name}?` : `Delete ${bucket!.name}?`}
            description={confirm === 'empty' ? 'Every file in the bucket is deleted.' : 'Only an empty bucket can be deleted.'}
            confirm={confirm === 'empty' ? 'Empty bucket' : 'Delete bucket'}
            pending={destroy.isPending}
            error={destroy.error}
            onConfirm={() => destroy.mutate(confirm)}
            onCancel={() => setConfirm(null)}
          />
        )}
      </DialogContent>
    </Dialog>
  )
}

function Browser({ bucket }: { bucket: Bucket }) {
  const qc = useQueryClient()
  const [prefix, setFolderPrefix] = useState('')
  const [search, setSearch] = useState('')
  const [selected, setSelected] = useState<string | null>(null)
  const setPrefix = (p: string) => (setFolderPrefix(p), setSelected(null))
  const [deleting, setDeleting] = useState<string | null>(null)
  const [folder, setFolder] = useState<string | null>(null)
  const fileInput = useRef<HTMLInputElement>(null)
  const list = useQuery({ queryKey: ['storage', 'objects', bucket.id, prefix, search], queryFn: () => listObjects(bucket.id, prefix, search) })
  const refresh = () => qc.invalidateQueries({ queryKey: ['storage', 'objects', bucket.id] })
  const [progress, setProgress] = useState<string | null>(null)
  const send = useMutation({
    mutationFn: async (files: File[]) => {
      for (const [i, f] of files.entries()) {
        await upload(bucket.id, prefix + f.name, f, (p) => setProgress(`${f.name} ${Math.round(p * 100)}%${files.length > 1 ? ` (${i + 1} of ${files.length})` : ''}`))
      }
    },
    onSettled: () => (setProgress(null), refresh()),
  })
  const remove = useMutation({ mutationFn: (name: string) => deleteObjects(bucket.id, [name]), onSuccess: () => (setDeleting(null), setSelected(null), refresh()) })
  const parts = prefix.split('/').filter(Boolean)
  const entries = list.data ?? []
  return (
    <div className={SPLIT}>
      <div className={cn(SPLIT_MAIN, 'gap-2 p-4')}>
        <div className="flex items-center gap-2">
          <nav className="flex items-center gap-1 whitespace-nowrap text-sm" aria-label="Folder">
            <button className="hover:underline" onClick={() => setPrefix('')}>
              {bucket.name}
            </button>
            {parts.map((p, i) => (
              <span key={i} className="flex items-center gap-1">
                / <button className="hover:underline" onClick={() => setPrefix(parts.slice(0, i + 1).join('/') + '/')}>{p}</button>
              </span>
            ))}
          </nav>
          <Input className="ml-auto max-w-56" placeholder="Search this folder" aria-label="Search files" value={search} onChange={(e) => setSearch(e.target.value)} />
          <Button variant="outline" onClick={() => setFolder('')}>
            <FolderPlus /> New folder
          </Button>
          <Button onClick={() => fileInput.current?.click()} disabled={send.isPending}>
            <Upload /> {send.isPending ? `Uploading ${progress ?? ''}…` : 'Upload files'}
          </Button>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-label="Files to upload"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? [])
              e.target.value = ''
              if (files.length) send.mutate(files)
            }}
          />
        </div>
        <p className="text-[11px] text-muted-foreground">Uploads are resumable (TUS, 6 MB chunks) and replace a file of the same name; the bucket's limits apply.</p>
        <ErrorText error={list.error || send.error} />
        <div className="grid-scroll flex-1 rounded-md border border-border">
          <table className="w-full text-sm" aria-label="Files">
            <thead className="sticky top-0 bg-panel text-left text-xs text-muted-foreground">
              <tr>
                <th className="px-3 py-2 font-medium">Name</th>
                <th className="px-3 py-2 font-medium">Size</th>
                <th className="px-3 py-2 font-medium">Type</th>
                <th className="px-3 py-2 font-medium">Updated</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr
                  key={e.name}
                  className={cn('cursor-pointer border-t border-border', selected === prefix + e.name ? 'bg-accent' : 'hover:bg-accent/50')}
                  onClick={() => (e.id === null ? setPrefix(prefix + e.name + '/') : setSelected(prefix + e.name))}
                >
                  <td className="flex items-center gap-2 px-3 py-1.5">
                    {e.id === null ? <Folder className="size-4 text-primary" /> : <File className="size-4 text-muted-foreground" />}
                    {e.name}
                  </td>
                  <td className="px-3 py-1.5 text-xs">{e.metadata?.size != null ? formatBytes(e.metadata.size) : ''}</td>
                  <td className="px-3 py-1.5 text-xs">{e.metadata?.mimetype ?? ''}</td>
                  <td className="px-3 py-1.5 text-xs">{e.updated_at ? new Date(e.updated_at).toLocaleString('en-GB') : ''}</td>
                </tr>
              ))}
              {list.data && entries.length === 0 && (
                <tr>
                  <td colSpan={4} className="px-3 py-4 text-center text-xs text-muted-foreground">
                    This folder is empty.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </div>
      {selected && (
        <Preview
          key={selected}
          bucket={bucket}
          name={selected}
          entry={entries.find((e) => prefix + e.name === selected)}
          onDelete={() => setDeleting(selected)}
          onClose={() => setSelected(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          open
          title={`Delete ${deleting}?`}
          description="The file is deleted from the bucket. The change is written to the audit log."
          confirm="Delete file"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
      {folder !== null && (
        <Dialog open onOpenChange={(o) => !o && setFolder(null)}>
          <DialogContent title="New folder" description="A folder exists once a file is in it: upload into it next.">
            <form
              className="flex flex-col gap-3"
              onSubmit={(e) => {
                e.preventDefault()
                if (folder.trim()) setPrefix(prefix + folder.trim().replace(/\/+$/, '') + '/')
                setFolder(null)
              }}
            >
              <Input autoFocus aria-label="Folder name" value={folder} onChange={(e) => setFolder(e.target.value)} />
              <Button type="submit">Open folder</Button>
            </form>
          </DialogContent>
        </Dialog>
      )}
    </div>
  )
}

function Preview({ bucket, name, entry, onDelete, onClose }: { bucket: Bucket; name: string; entry?: Entry; onDelete: () => void; onClose: () => void }) {
  const type = entry?.metadata?.mimetype ?? ''
  const media = type.startsWith('image/') || type.startsWith('audio/') || type.startsWith('video/')
  const blob = useQuery({ queryKey: ['storage', 'blob', bucket.id, name, entry?.updated_at], queryFn: () => download(bucket.id, name), enabled: media, staleTime: Infinity })
  const [url, setUrl] = useState<string | null>(null)
  useEffect(() => {
    if (!blob.data) return
    const u = URL.createObjectURL(blob.data)
    setUrl(u)
    return () => URL.revokeObjectURL(u)
  }, [blob.data])
  const [expires, setExpires] = useState('3600')
  const project = useQuery({ queryKey: ['project'], queryFn: () => api<{ url: string }>('/api/project') })
  const sign = useMutation({ mutationFn: () => signURL(bucket.id, name, Number(expires)) })
  const save = useMutation({
    mutationFn: async () => {
      const b = blob.data ?? (await download(bucket.id, name))
      const u = URL.createObjectURL(b)
      const a = document.createElement('a')
      a.href = u
      a.download = name.split('/').pop() ?? name
      a.click()
      setTimeout(() => URL.revokeObjectURL(u), 1000)
    },
  })
  const signed = sign.data ? `${project.data?.url ?? ''}/storage/v1${sign.data.signedURL}` : ''
  const panel = useRef<HTMLElement>(null)
  useRevealOnPhone(panel, name)
  return (
    <aside ref={panel} className={cn(SIDE_END, 'grid-scroll flex flex-col gap-3 p-4 text-sm md:w-96')} aria-label="File">
      <div className="flex items-start gap-2">
        <div className="min-w-0 flex-1 break-all font-semibold">{name}</div>
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <div className="text-xs text-muted-foreground">
        {type || 'unknown type'} · {entry?.metadata?.size != null ? formatBytes(entry.metadata.size) : ''}
      </div>
      <Card className="flex min-h-32 items-center justify-center p-2" data-testid="file-preview">
        {!media && <span className="text-xs text-muted-foreground">No preview for this type.</span>}
        <ErrorText error={blob.error} />
        {url && type.startsWith('image/') && <img src={url} alt={name} className="max-h-72 max-w-full" />}
        {url && type.startsWith('audio/') && <audio src={url} controls aria-label={`Play ${name}`} />}
        {url && type.startsWith('video/') && <video src={url} controls className="max-h-72 max-w-full" />}
      </Card>
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" size="sm" onClick={() => save.mutate()} disabled={save.isPending}>
          <Download /> Download
        </Button>
        <Button variant="destructive" size="sm" onClick={onDelete}>
          <Trash2 /> Delete
        </Button>
      </div>
      <ErrorText error={save.error} />
      <div className="flex flex-col gap-1">
        <Label>Signed URL</Label>
        <div className="flex gap-2">
          <Select aria-label="Expires in" value={expires} onChange={(e) => setExpires(e.target.value)}>
            <option value="60">1 minute</option>
            <option value="3600">1 hour</option>
            <option value="86400">1 day</option>
            <option value="604800">1 week</option>
          </Select>
          <Button size="sm" onClick={() => sign.mutate()} disabled={sign.isPending}>
            <Link2 /> Sign
          </Button>
        </div>
        <ErrorText error={sign.error} />
        {signed && (
          <Input readOnly aria-label="Signed URL" value={signed} onFocus={(e) => e.target.select()} className="font-mono text-[11px]" />
        )}
      </div>
    </aside>
  )
}

function StoragePolicies() {
  const p = useQuery({ queryKey: ['pg', 'policies', 'storage'], queryFn: () => api<Policy[]>('/pg/policies?included_schemas=storage') })
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-4">
      <h1 className="text-base font-semibold">Storage policies</h1>
      <p className="text-xs text-muted-foreground">
        Row-level security on <code>storage.objects</code> and <code>storage.buckets</code> decides what API callers may read and write. Edit them in the Table editor (schema storage).
      </p>
      <ErrorText error={p.error} />
      {(p.data ?? []).map((x) => (
        <Card key={x.id} className="flex flex-col gap-1" data-testid="storage-policy">
          <div className="flex items-center gap-2">
            <span className="font-medium">{x.name}</span>
            <Badge>{x.command}</Badge>
            <span className="text-xs text-muted-foreground">
              on {x.table} to {x.roles.join(', ')}
            </span>
          </div>
          {x.definition && <code className="font-mono text-xs text-muted-foreground">USING ({x.definition})</code>}
          {x.check && <code className="font-mono text-xs text-muted-foreground">WITH CHECK ({x.check})</code>}
        </Card>
      ))}
      {p.data?.length === 0 && <p className="text-xs text-muted-foreground">No storage policies: only the service role reaches private files.</p>}
    </div>
  )
}
