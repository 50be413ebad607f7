import { Toaster as Sonner, type ToasterProps } from 'sonner'

/** Toaster uses the app defaults of spec section 9: bottom-right, 5 s, close button. */
function Toaster(props: ToasterProps) {
  return <Sonner theme="dark" position="bottom-right" duration={5000} closeButton richColors {...props} />
}

export { Toaster }
