import { Link, useParams } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { ProviderButtons } from '@/features/auth/components/provider-buttons'
import { RegisterForm } from '@/features/auth/components/register-form'
import NotFoundPage from './not-found'

const copy = {
  fan: { title: 'Create your fan account', text: 'Listen, like and support artists with every stream.' },
  artist: { title: 'Create your artist account', text: 'Upload your music and earn from sponsored streams.' },
  sponsor: { title: 'Create your sponsor account', text: 'Fund artists and reach listeners who press play.' },
} as const

/** RegisterRolePage is /register/fan, /register/artist and /register/sponsor. */
export default function RegisterRolePage() {
  const { role } = useParams()
  if (role !== 'fan' && role !== 'artist' && role !== 'sponsor') return <NotFoundPage />
  return (
    <div className="mx-auto max-w-xl py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">{copy[role].title}</CardTitle>
          <CardDescription>
            {copy[role].text}{' '}
            <Link to="/register" className="text-primary hover:underline">
              Choose another role
            </Link>
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <ProviderButtons role={role} />
          <RegisterForm role={role} />
        </CardContent>
      </Card>
    </div>
  )
}
