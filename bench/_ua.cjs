require('undici/lib/dispatcher/agent.js')
