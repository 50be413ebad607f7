import { useMutation, useQueryClient } from '@tanstack/react-query'
import { publicPath } from '@/lib/media'
import { supabase } from '@/lib/supabase'

// A profile photo: an image in the user's own folder of the avatars bucket,
// set as public_profiles.avatar_url. Storage refuses other types, larger
// files and other folders; the database refuses a photo that is not the
// user's own upload, copies it to the artist or sponsor profile and deletes
// the photo it replaces. The checks here only spare a doomed upload.

/** AVATAR_TYPES are the image types the avatars bucket accepts. */
export const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif']
/** MAX_AVATAR_BYTES is the avatars bucket's size limit (5 MB). */
export const MAX_AVATAR_BYTES = 5 * 1024 * 1024

/** avatarProblem says why a file cannot be a profile photo, or null. */
export function avatarProblem(f: { type: string; size: number }): string | null {
  if (!AVATAR_TYPES.includes(f.type)) return 'Choose a JPEG, PNG, WebP or GIF image'
  if (f.size > MAX_AVATAR_BYTES) return 'The photo is larger than 5 MB'
  return null
}

/** avatarObjectName is where a user's new photo goes: a fresh name in their folder, so caches never show the old one. */
export function avatarObjectName(userId: string, type: string): string {
  const ext = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' }[type] ?? 'img'
  return `${userId}/${crypto.randomUUID()}.${ext}`
}

/** setAvatar uploads the file and makes it the user's photo; null removes the photo. */
export async function setAvatar(userId: string, file: File | null): Promise<string | null> {
  const sb = supabase()
  let url: string | null = null
  if (file) {
    const problem = avatarProblem(file)
    if (problem) throw new Error(problem)
    const name = avatarObjectName(userId, file.type)
    const { error } = await sb.storage.from('avatars').upload(name, file, { contentType: file.type, cacheControl: '31536000' })
    if (error) throw new Error(error.message)
    url = publicPath('avatars', name)
  }
  const { error } = await sb.from('public_profiles').update({ avatar_url: url }).eq('id', userId)
  if (error) throw new Error(error.message)
  return url
}

/** useSetAvatar changes the signed-in user's photo and refreshes where it shows. */
export function useSetAvatar(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: (file: File | null) => {
      if (!userId) throw new Error('Sign in to change your photo')
      return setAvatar(userId, file)
    },
    onSuccess: () => {
      for (const key of ['ownProfile', 'bootstrap', 'profile', 'topArtists', 'topFans']) void qc.invalidateQueries({ queryKey: [key] })
    },
  })
}
