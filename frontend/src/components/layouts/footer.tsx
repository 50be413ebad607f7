import { Link } from 'react-router'
import { footerGroups } from '@/config/nav'

/** Footer is the desktop footer with the three link groups, tagline and copyright. */
export function Footer() {
  return (
    <footer className="mt-16 hidden border-t border-border md:block">
      <div className="mx-auto grid max-w-7xl grid-cols-4 gap-8 px-4 py-10">
        <div>
          <p className="text-lg font-bold">Backline</p>
          <p className="mt-2 text-sm text-muted-foreground">Connecting artists with sponsors through innovative music streaming.</p>
        </div>
        {footerGroups.map((g) => (
          <div key={g.title}>
            <p className="mb-3 text-sm font-semibold">{g.title}</p>
            <ul className="grid grid-cols-1 gap-2 text-sm text-muted-foreground">
              {g.links.map((l) => (
                <li key={l.href}>
                  <Link to={l.href} className="hover:text-foreground">
                    {l.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
      <div className="border-t border-border py-4 text-center text-xs text-muted-foreground">
        © {new Date().getFullYear()} Backline. All rights reserved. · Powered By Basalt
      </div>
    </footer>
  )
}
