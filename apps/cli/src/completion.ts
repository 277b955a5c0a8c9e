import type { Command, Option } from 'commander';

/**
 * Shell completion, generated from the commander tree itself, so a new command completes without touching
 * this file. The script is static: the shell never starts svc on TAB (a Node start-up per key press is too
 * slow), which is why no callback-style library is used (docs/decisions/0021).
 */
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** The words after `svc` that lead here ('' for svc itself). */
  key: string;
  commands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

function visibleOptions(cmd: Command): Option[] {
  return (cmd.options as Option[]).filter((o) => !o.hidden && o.long !== undefined);
}

function walk(cmd: Command, key: string, out: Node[]): void {
  const commands = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
  out.push({
    key,
    commands: commands.map((c) => ({ name: c.name(), description: c.description() })),
    options: [...visibleOptions(cmd).map((o) => ({ flag: o.long as string, description: o.description })), { flag: '--help', description: 'show help' }],
  });
  for (const sub of commands) walk(sub, key === '' ? sub.name() : `${key} ${sub.name()}`, out);
}

/** Option values the shell can offer (--fail-on error|warn|never), and positional choices (completion bash|zsh). */
function choices(cmd: Command, out: Map<string, string[]>, positional: Map<string, string[]>, key = ''): void {
  for (const o of visibleOptions(cmd)) if (o.argChoices) out.set(o.long as string, o.argChoices);
  const first = (cmd.registeredArguments ?? [])[0];
  if (first?.argChoices && key !== '') positional.set(key, first.argChoices);
  for (const sub of cmd.commands) choices(sub, out, positional, key === '' ? sub.name() : `${key} ${sub.name()}`);
}

/** Single-quote for the shell. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function completionScript(program: Command, shell: Shell): string {
  const nodes: Node[] = [];
  walk(program, '', nodes);
  const optionChoices = new Map<string, string[]>();
  const positional = new Map<string, string[]>();
  choices(program, optionChoices, positional);
  const paths = nodes.filter((n) => n.key !== '').map((n) => quote(n.key));
  return shell === 'bash' ? bash(nodes, paths, optionChoices, positional) : zsh(nodes, paths, optionChoices, positional);
}

function bash(nodes: Node[], paths: string[], optionChoices: Map<string, string[]>, positional: Map<string, string[]>): string {
  const words = (n: Node) => [...n.commands.map((c) => c.name), ...n.options.map((o) => o.flag)].join(' ');
  return `# svc completion for bash: source <(svc completion bash)
_svc_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} key='' next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    next=\${key:+$key }\${COMP_WORDS[i]}
    case "$next" in
      ${paths.join('|')}) key=$next ;;
    esac
  done
  local words=''
  case "$prev" in
${[...optionChoices].map(([flag, values]) => `    ${flag}) COMPREPLY=($(compgen -W ${quote(values.join(' '))} -- "$cur")); return ;;`).join('\n')}
  esac
  case "$key" in
${nodes.map((n) => `    ${quote(n.key)}) words=${quote([...(positional.get(n.key) ?? []), words(n)].join(' '))} ;;`).join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc_complete svc
`;
}

function zsh(nodes: Node[], paths: string[], optionChoices: Map<string, string[]>, positional: Map<string, string[]>): string {
  const described = (items: { name: string; description: string }[]) =>
    items.map((i) => quote(`${i.name.replace(/:/g, '\\:')}:${i.description.replace(/\n/g, ' ')}`)).join(' ');
  return `#compdef svc
# svc completion for zsh: svc completion zsh > "\${fpath[1]}/_svc" (then restart zsh), or source <(svc completion zsh)
_svc() {
  local key='' next i
  for ((i = 2; i < CURRENT; i++)); do
    next=\${key:+$key }\${words[i]}
    case "$next" in
      (${paths.join('|')}) key=$next ;;
    esac
  done
  case "\${words[CURRENT-1]}" in
${[...optionChoices].map(([flag, values]) => `    (${flag}) compadd -- ${values.join(' ')}; return ;;`).join('\n')}
  esac
  local -a commands options
  case "$key" in
${nodes
  .map((n) => {
    const values = positional.get(n.key) ?? [];
    return `    (${quote(n.key)}) commands=(${described([...values.map((v) => ({ name: v, description: v })), ...n.commands])}) options=(${described(n.options.map((o) => ({ name: o.flag, description: o.description })))}) ;;`;
  })
  .join('\n')}
  esac
  if [[ \${words[CURRENT]} == -* ]]; then
    _describe -t options 'option' options
  elif (( \${#commands} )); then
    _describe -t commands 'svc command' commands
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == _svc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}
