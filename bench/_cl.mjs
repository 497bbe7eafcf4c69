await import('@raf/client')
