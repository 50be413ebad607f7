import { useEffect } from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { z } from 'zod'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Textarea } from '@/components/ui/textarea'
import { FormField } from '@/components/form-field'
import { LinkedIdentities } from '@/features/auth/components/linked-identities'
import { ConnectedApps } from '@/features/connected-apps/components/connected-apps'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore } from '@/lib/auth'
import { supabase } from '@/lib/supabase'

const profileSchema = z.object({
  display_name: z.string().trim().min(2, 'Display name must be at least 2 characters').max(60),
  username: z.string().trim().toLowerCase().regex(/^[a-z0-9_]{3,30}$/, 'Username must be 3–30 letters, numbers or underscores'),
  bio: z.string().trim().max(500, 'Bio must be at most 500 characters'),
  location: z.string().trim().max(80),
  website: z.string().trim().url('Enter a full URL, e.g. https://example.com').or(z.literal('')),
})
type ProfileInput = z.input<typeof profileSchema>

/** OwnProfilePage edits the signed-in user's public profile. */
export default function OwnProfilePage() {
  const userId = useAuthStore((s) => s.user?.id)
  const qc = useQueryClient()
  const { data: profile } = useOwnProfile()
  const { register, handleSubmit, reset, formState } = useForm<ProfileInput>({
    resolver: zodResolver(profileSchema),
    defaultValues: { display_name: '', username: '', bio: '', location: '', website: '' },
  })
  useEffect(() => {
    if (profile) {
      reset({ display_name: profile.display_name ?? '', username: profile.username ?? '', bio: profile.bio ?? '', location: profile.location ?? '', website: profile.website ?? '' })
    }
  }, [profile, reset])
  const onSubmit = async (raw: ProfileInput) => {
    const v = profileSchema.parse(raw)
    const { error } = await supabase()
      .from('public_profiles')
      .update({ ...v, website: v.website || null })
      .eq('id', userId!)
    if (error) {
      toast.error('Could not save profile', { description: error.code === '23505' ? 'That username is taken.' : error.message })
      return
    }
    toast.success('Profile updated')
    void qc.invalidateQueries({ queryKey: ['ownProfile'] })
  }
  const e = formState.errors
  return (
    <div className="mx-auto grid max-w-xl grid-cols-1 gap-4 py-4">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Edit Profile</CardTitle>
        </CardHeader>
        <CardContent>
          <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
            <FormField id="display_name" label="Display name" error={e.display_name?.message}>
              <Input id="display_name" {...register('display_name')} />
            </FormField>
            <FormField id="username" label="Username" error={e.username?.message}>
              <Input id="username" {...register('username')} />
            </FormField>
            <FormField id="bio" label="Bio" error={e.bio?.message}>
              <Textarea id="bio" rows={4} {...register('bio')} />
            </FormField>
            <FormField id="location" label="Location" error={e.location?.message}>
              <Input id="location" {...register('location')} />
            </FormField>
            <FormField id="website" label="Website" error={e.website?.message}>
              <Input id="website" type="url" {...register('website')} />
            </FormField>
            <Button type="submit" disabled={formState.isSubmitting}>
              Save changes
            </Button>
          </form>
        </CardContent>
      </Card>
      <LinkedIdentities />
      <ConnectedApps />
    </div>
  )
}
