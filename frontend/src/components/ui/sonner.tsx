import { Toaster as Sonner, type ToasterProps } from 'sonner'

/**
 * Toaster uses the app defaults of spec section 9: bottom-right, 5 s, close
 * button; `bottom` lifts the toasts above the app's bottom bars.
 */
function Toaster({ bottom, ...props }: ToasterProps & { bottom?: number }) {
  const edge = bottom === undefined ? undefined : { bottom }
  return (
    <Sonner
      theme="dark"
      position="bottom-right"
      duration={5000}
      closeButton
      richColors
      // Sonner has its own phone breakpoint (600 px); the app's is 768 px, so both get the same bottom.
      offset={edge}
      mobileOffset={edge}
      {...props}
    />
  )
}

export { Toaster }
