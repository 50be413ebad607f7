// Policy templates, as Supabase's dashboard offers them: a starting point
// the operator edits before saving.
import type { Policy } from '@/lib/types'

export type PolicyDraft = Pick<Policy, 'name' | 'command' | 'roles' | 'action'> & { definition: string; check: string }

/** templates for a table; ownerColumn is a column holding a user id, if any. */
export function templates(table: string, ownerColumn?: string): { label: string; draft: PolicyDraft }[] {
  const own = ownerColumn ? `(select auth.uid()) = ${ownerColumn}` : '(select auth.uid()) = user_id'
  return [
    { label: 'Everyone can read', draft: { name: `${table}: everyone reads`, command: 'SELECT', roles: ['anon', 'authenticated'], action: 'PERMISSIVE', definition: 'true', check: '' } },
    { label: 'Signed-in users can read', draft: { name: `${table}: signed-in users read`, command: 'SELECT', roles: ['authenticated'], action: 'PERMISSIVE', definition: 'true', check: '' } },
    { label: 'Signed-in users can insert', draft: { name: `${table}: signed-in users insert`, command: 'INSERT', roles: ['authenticated'], action: 'PERMISSIVE', definition: '', check: 'true' } },
    { label: 'Users manage their own rows', draft: { name: `${table}: owners manage their rows`, command: 'ALL', roles: ['authenticated'], action: 'PERMISSIVE', definition: own, check: own } },
    { label: 'Nobody (restrictive)', draft: { name: `${table}: deny`, command: 'ALL', roles: ['public'], action: 'RESTRICTIVE', definition: 'false', check: 'false' } },
    { label: 'Blank', draft: { name: '', command: 'SELECT', roles: ['public'], action: 'PERMISSIVE', definition: '', check: '' } },
  ]
}
