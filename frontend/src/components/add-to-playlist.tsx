import { useState } from 'react'
import { Check, ListPlus, Plus } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { usePlaylistAction, usePlaylistNames } from '@/lib/playlists'
import { cn } from '@/lib/utils'

/** KEEPS_PLAYER marks popups the expanded player does not treat as a click outside it. */
export const KEEPS_PLAYER = 'data-keeps-player'

/**
 * AddToPlaylist adds any track to one of the signed-in user's playlists, or
 * to a new one named here: from a track card and from the player. The
 * database decides (the owner's playlists only, a track once, the limits) and
 * its refusal is shown. Visitors are not offered it.
 */
export function AddToPlaylist({
  track,
  withLabel = false,
  className,
  onOpenChange,
}: {
  track: { id: string; title: string }
  withLabel?: boolean
  className?: string
  onOpenChange?: (open: boolean) => void
}) {
  const userId = useAuthStore((s) => s.user?.id)
  const [open, setOpen] = useState(false)
  const [name, setName] = useState('')
  const lists = usePlaylistNames(userId, open)
  const act = usePlaylistAction(userId)
  if (!userId) return null
  const show = (o: boolean) => {
    setOpen(o)
    onOpenChange?.(o)
    if (!o) setName('')
  }
  const done = (listName: string) => ({
    onSuccess: () => {
      toast.success(`Added to ${listName}`, { description: track.title })
      show(false)
    },
    onError: (e: Error) => toast.error('Could not add the track', { description: e.message }),
  })
  return (
    <>
      <Button
        type="button"
        variant={withLabel ? 'outline' : 'ghost'}
        size={withLabel ? 'default' : 'icon'}
        className={className}
        aria-label={`Add ${track.title} to a playlist`}
        onClick={() => show(true)}
      >
        <ListPlus />
        {withLabel && 'Add to playlist'}
      </Button>
      {open && (
        <Dialog open onOpenChange={show}>
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
      )}
    </>
  )
}
