/** `check`: read-only verification of the env configuration (placeholder until the full checks land). */
export async function check(_env: NodeJS.ProcessEnv): Promise<number> {
  process.stderr.write('check: not implemented yet\n');
  return 1;
}
