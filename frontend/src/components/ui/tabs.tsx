import * as React from 'react'
import { Tabs as TabsPrimitive } from 'radix-ui'
import { cn } from '@/lib/utils'

const Tabs = TabsPrimitive.Root
function TabsList({ className, ...props }: React.ComponentProps<typeof TabsPrimitive.List>) {
  return <TabsPrimitive.List className={cn('inline-flex h-9 items-center rounded-lg bg-muted p-1', className)} {...props} />
}
function TabsTrigger({ className, ...props }: React.ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={cn('inline-flex items-center rounded-md px-3 py-1 text-sm font-medium data-[state=active]:bg-background data-[state=active]:shadow', className)}
      {...props}
    />
  )
}
const TabsContent = TabsPrimitive.Content

/** Tabs, TabsList, TabsTrigger and TabsContent are the shadcn tabs. */
export { Tabs, TabsList, TabsTrigger, TabsContent }
