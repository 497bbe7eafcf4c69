await import('@raf/core')
