import { useState } from 'react'
import { Check, Plus } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { usePlaylistAction, usePlaylistNames } from '@/lib/playlists'
import { cn } from '@/lib/utils'
import { KEEPS_PLAYER } from './add-to-playlist'

/**
 * AddToPlaylistDialog lists the user's playlists (the one already holding
 * the track marked), adds the track to the one chosen or to a new one named
 * here. Loaded when first opened, so pages with track cards do not carry it.
 */
export default function AddToPlaylistDialog({ userId, track, onClose }: { userId: string; track: { id: string; title: string }; onClose: () => void }) {
  const [name, setName] = useState('')
  const lists = usePlaylistNames(userId, true)
  const act = usePlaylistAction(userId)
  const done = (listName: string) => ({
    onSuccess: () => {
      toast.success(`Added to ${listName}`, { description: track.title })
      onClose()
    },
    onError: (e: Error) => toast.error('Could not add the track', { description: e.message }),
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent {...{ [KEEPS_PLAYER]: '' }}>
        <DialogHeader>
          <DialogTitle>Add to playlist</DialogTitle>
          <DialogDescription className="truncate">{track.title}</DialogDescription>
        </DialogHeader>
        {lists.isPending && <Skeleton className="h-10" />}
        {lists.isError && <p className="text-sm text-destructive">Your playlists could not be loaded.</p>}
        {lists.data && lists.data.length === 0 && <p className="text-sm text-muted-foreground">No playlists yet: name your first one below.</p>}
        <ul className="grid max-h-64 grid-cols-1 gap-1 overflow-y-auto" data-testid="playlist-choices">
          {lists.data?.map((l) => {
            const has = l.trackIds.includes(track.id)
            return (
              <li key={l.id}>
                <button
                  type="button"
                  disabled={has || act.isPending}
                  onClick={() => act.mutate({ kind: 'add', playlistId: l.id, trackId: track.id }, done(l.name))}
                  className={cn('flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-accent disabled:opacity-60', has && 'cursor-default hover:bg-transparent')}
                >
                  {has ? <Check className="size-4 text-emerald-500" /> : <Plus className="size-4" />}
                  <span className="min-w-0 flex-1 truncate">{l.name}</span>
                  <span className="text-xs text-muted-foreground">{has ? 'Added' : `${l.trackIds.length} tracks`}</span>
                </button>
              </li>
            )
          })}
        </ul>
        <form
          className="flex gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            act.mutate({ kind: 'createWith', name, trackId: track.id }, done(name.trim()))
          }}
        >
          <Input aria-label="New playlist name" placeholder="New playlist" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
          <Button type="submit" disabled={!name.trim() || act.isPending}>
            Create and add
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}
