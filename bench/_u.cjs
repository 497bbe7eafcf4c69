require('undici')
