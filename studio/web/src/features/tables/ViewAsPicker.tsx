import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Eye } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { ErrorText } from '@/components/ui/misc'
import type { ViewAs } from './query'

type User = { id: string; email?: string; phone?: string; role?: string; is_anonymous?: boolean }

/** ViewAsPicker chooses who the table is read as: the operator, a role, or a user. */
export function ViewAsPicker({ value, onChange }: { value: ViewAs; onChange: (v: ViewAs) => void }) {
  const [picking, setPicking] = useState(false)
  return (
    <div className="flex items-center gap-1">
      <Eye className="size-4 text-muted-foreground" />
      <Select
        aria-label="View as"
        className="w-48"
        value={value.role === 'user' ? 'user' : value.role}
        onChange={(e) => {
          const v = e.target.value
          if (v === 'user') setPicking(true)
          else onChange({ role: v as 'operator' | 'anon' | 'authenticated' })
        }}
      >
        <option value="operator">as operator (no RLS)</option>
        <option value="anon">as anon</option>
        <option value="authenticated">as authenticated (no user)</option>
        <option value="user">{value.role === 'user' ? `as ${value.email}` : 'as a user…'}</option>
      </Select>
      {picking && <UserSearch onPick={(u) => (setPicking(false), onChange({ role: 'user', userId: u.id, email: u.email || u.phone || u.id }))} onClose={() => setPicking(false)} />}
    </div>
  )
}

function UserSearch({ onPick, onClose }: { onPick: (u: User) => void; onClose: () => void }) {
  const [filter, setFilter] = useState('')
  // GoTrue's admin API, which Studio's server calls with the service-role key.
  const users = useQuery({
    queryKey: ['auth-users', filter],
    queryFn: () => api<{ users: User[] }>(`/auth/v1/admin/users?per_page=20&filter=${encodeURIComponent(filter)}`),
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent title="View the table as a user" description="Rows are read through the same caller setup as the user's REST requests: their claims, their role, their policies.">
        <Input autoFocus placeholder="Search by email or name" aria-label="Search users" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <ErrorText error={users.error} />
        <ul className="grid-scroll max-h-80">
          {(users.data?.users ?? []).map((u) => (
            <li key={u.id}>
              <Button variant="ghost" className="w-full justify-start" onClick={() => onPick(u)}>
                {u.email || u.phone || '(anonymous)'} <span className="ml-auto font-mono text-[11px] text-muted-foreground">{u.id.slice(0, 8)}</span>
              </Button>
            </li>
          ))}
          {users.data?.users.length === 0 && <li className="text-xs text-muted-foreground">No user matches.</li>}
        </ul>
      </DialogContent>
    </Dialog>
  )
}
