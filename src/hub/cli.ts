// npm run hub -- serve | operator add|list|revoke: the team hub's command line (commands.ts).
import { runCli } from './commands'

const code = await runCli(process.argv.slice(2), {
  out: (line) => void process.stdout.write(line + '\n'),
  err: (line) => void process.stderr.write(line + '\n')
})
process.exit(code)
