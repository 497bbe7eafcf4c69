await import('zod/mini')
