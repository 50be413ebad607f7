// The keys (and shapes) of the caches the app shell's bootstrap seeds, apart
// from the hooks that read them: the bootstrap is part of the first paint,
// the hooks (live updates, profile reads) are not.

/** suspensionQueryKey is the cache key of a user's suspension. */
export const suspensionQueryKey = (userId: string | undefined) => ['suspension', userId] as const

/** Suspension is whether a user is suspended, and why. */
export interface Suspension {
  suspended: boolean
  reason: string | null
}

/** ownProfileQueryKey is the cache of the signed-in user's public profile. */
export const ownProfileQueryKey = (userId: string | undefined) => ['ownProfile', userId] as const

/** RoleProfileExtras are the completeness fields kept in the role's own profile table. */
export interface RoleProfileExtras {
  phone: string | null
  track_count?: number
}

/** roleProfileQueryKey is the cache of a user's role profile extras. */
export const roleProfileQueryKey = (userId: string | undefined, role: string | null | undefined) => ['roleProfile', userId, role] as const
