import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseShellCommand } from './shell-words.js';

/** Commands the reader accounts for fully, with the simple commands `sh` runs. */
const READ: [string, string[][]][] = [
  ['echo hi', [['echo', 'hi']]],
  ['  echo   hi  ', [['echo', 'hi']]],
  ['echo\thi', [['echo', 'hi']]],
  [
    'echo hi#; touch M',
    [
      ['echo', 'hi#'],
      ['touch', 'M'],
    ],
  ],
  ['echo hi #; touch M', [['echo', 'hi']]],
  ['# only a comment', []],
  ['echo a#b', [['echo', 'a#b']]],
  ["echo '#'; ls", [['echo', '#'], ['ls']]],
  ['echo "#"', [['echo', '#']]],
  ['echo \\#x', [['echo', '#x']]],
  [
    'echo a && git status -s | wc -l',
    [
      ['echo', 'a'],
      ['git', 'status', '-s'],
      ['wc', '-l'],
    ],
  ],
  ['a || b; c & d', [['a'], ['b'], ['c'], ['d']]],
  ['echo hi;', [['echo', 'hi']]],
  ['sleep 1 &', [['sleep', '1']]],
  ['echo a;b', [['echo', 'a'], ['b']]],
  ['echo a&&b', [['echo', 'a'], ['b']]],
  ["echo 'a b' c", [['echo', 'a b', 'c']]],
  ["echo 'it''s'", [['echo', 'its']]],
  ['echo "a b"', [['echo', 'a b']]],
  ['echo a"b c"d', [['echo', 'ab cd']]],
  ['echo \'a;b\' "c|d"', [['echo', 'a;b', 'c|d']]],
  ["echo '$(rm -rf ~)'", [['echo', '$(rm -rf ~)']]],
  ["echo '`id`'", [['echo', '`id`']]],
  ['echo "a\\"b"', [['echo', 'a"b']]],
  ['echo "a\\\\b"', [['echo', 'a\\b']]],
  ['echo "a\\nb"', [['echo', 'a\\nb']]],
  ['echo "\\$HOME"', [['echo', '$HOME']]],
  ['echo a\\ b', [['echo', 'a b']]],
  ['echo \\;', [['echo', ';']]],
  ['echo ""', [['echo', '']]],
  ["echo ''", [['echo', '']]],
  ['git diff HEAD~1', [['git', 'diff', 'HEAD~1']]],
  ['git log --format=%H', [['git', 'log', '--format=%H']]],
  ['ls -la ~/x', [['ls', '-la', '~/x']]],
  ['ls a=b', [['ls', 'a=b']]],
  ['"FOO=1" x', [['FOO=1', 'x']]],
  ['grep -n foo src/a.ts', [['grep', '-n', 'foo', 'src/a.ts']]],
  ['echo ]', [['echo', ']']]],
  ['echo a%b@c^d', [['echo', 'a%b@c^d']]],
];

/** Commands the reader refuses to vouch for (each then asks), and why. */
const REFUSED: [string, RegExp][] = [
  ['echo $HOME', /parameter expansion/],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell text itself
  ['echo ${HOME}', /parameter expansion/],
  ['echo $(id)', /parameter expansion or substitution/],
  ["echo $'a'", /parameter expansion/],
  ['echo "$HOME"', /inside double quotes/],
  ['echo "$(id)"', /inside double quotes/],
  ['echo `id`', /backquote/],
  ['echo "`id`"', /inside double quotes/],
  ['echo hi > /etc/passwd', /redirection/],
  ['echo hi >> x', /redirection/],
  ['cat < /etc/passwd', /redirection/],
  ['cat <<EOF', /redirection/],
  ['echo 2>&1', /redirection/],
  ['(rm -rf ~)', /subshell/],
  ['echo <(id)', /redirection/],
  ['f() { rm -rf ~; }', /subshell/],
  ['{ echo; rm x; }', /brace/],
  ['echo {a,b}', /brace/],
  ['ls *.ts', /glob/],
  ['ls ?', /glob/],
  ['ls [ab]', /glob/],
  ['[ -f x ]', /glob/],
  ['! echo', /negation/],
  ['FOO=1 echo hi', /assignment/],
  ['PATH=/tmp/evil ls', /assignment/],
  ['FOO="x y" echo', /assignment/],
  ['echo hi\nrm -rf ~', /line break/],
  ['echo hi\rrm -rf ~', /line break/],
  ['echo "a\nb"', /line break/],
  ['echo \\\nx', /line break/],
  ['echo \u001b[2K', /control character/],
  ['echo "unterminated', /unterminated double quote/],
  ["echo 'unterminated", /unterminated single quote/],
  ['echo \\', /backslash at the end/],
  ['eval rm -rf ~', /'eval'/],
  ["'eval' x", /'eval'/],
  ['exec rm', /'exec'/],
  ['. ./script', /'\.'/],
  ['source x', /'source'/],
  ['command rm x', /'command'/],
  ['if true; then rm x; fi', /'if'/],
  ['for x in a; do rm x; done', /'for'/],
  ['while true; do :; done', /'while'/],
  ['echo a;; echo b', /operator ';;'/],
  ['echo a |& cat', /operator '\|&'/],
  ['; echo', /';' without a command before it/],
  ['echo &&', /'&&' without a command after it/],
  ['echo ||', /'\|\|' without a command after it/],
  ['echo | ', /'\|' without a command after it/],
  ['echo a && && b', /without a command before it/],
  ['ls --prefix=~/x', /tilde after = or :/],
  ['ls PATH=a:~/x', /tilde after = or :/],
];

describe('parseShellCommand reads sh command lines conservatively', () => {
  it.each(READ)('%j → %j', (text, commands) => {
    const parsed = parseShellCommand(text);
    expect(parsed).toMatchObject({ ok: true });
    if (parsed.ok) expect(parsed.commands.map((words) => words.map((w) => w.value))).toEqual(commands);
  });

  it.each(REFUSED)('refuses %j (%s)', (text, reason) => {
    const parsed = parseShellCommand(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('marks only an unquoted leading ~ as a tilde expansion', () => {
    const parsed = parseShellCommand('ls ~ ~/a ~root \'~\' "~" \\~ a~');
    expect(parsed.ok && parsed.commands[0]?.slice(1).map((w) => [w.value, w.tilde])).toEqual([
      ['~', true],
      ['~/a', true],
      ['~root', true],
      ['~', false],
      ['~', false],
      ['~', false],
      ['a~', false],
    ]);
  });

  // The table's readings agree with the shell that runs them.
  it('reads the words as sh does', () => {
    for (const [text, commands] of READ) {
      if (commands.length !== 1 || commands[0]?.[0] !== 'echo') continue;
      const printf = text.replace(/^(\s*)echo/, "$1printf '%s\\n'");
      const out = execFileSync('sh', ['-c', printf], { encoding: 'utf8' });
      expect(out.split('\n').slice(0, -1), text).toEqual(commands[0].slice(1));
    }
  });
});
