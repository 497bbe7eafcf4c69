await import('zod')
