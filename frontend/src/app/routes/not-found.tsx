import { Link, useNavigate } from 'react-router'
import { Button } from '@/components/ui/button'

/** NotFoundPage is the 404 page. */
export default function NotFoundPage() {
  const navigate = useNavigate()
  return (
    <div className="grid grid-cols-1 justify-items-center gap-4 py-24 text-center">
      <p className="text-7xl font-extrabold text-primary">404</p>
      <h1 className="text-2xl font-bold">Oops! Page not found</h1>
      <div className="flex gap-2">
        <Button asChild>
          <Link to="/">Return to Home</Link>
        </Button>
        <Button variant="outline" onClick={() => navigate(-1)}>
          Go Back
        </Button>
      </div>
    </div>
  )
}
