import { Errors } from '@oclif/core';

/**
 * Questions for a person at a terminal. They are asked only when stdin is a
 * TTY, and drawn on stderr so that stdout (and `--json`) carries only the
 * result. Ctrl-C ends the command with exit code 130, printing nothing more.
 */

export const stdinIsTty = (): boolean => process.stdin.isTTY === true;

async function asked<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (err) {
    if (err instanceof Error && err.name === 'ExitPromptError') Errors.exit(130);
    throw err;
  }
}

/** Reads a secret without echoing it. */
export async function askPassword(message: string): Promise<string> {
  // The prompt library is loaded when a question is asked: most runs of `ecf` ask none.
  const { default: password } = await import('@inquirer/password');
  return asked(password({ message }, { output: process.stderr }));
}

/** Yes or no; no unless answered yes. */
export async function askConfirm(message: string): Promise<boolean> {
  const { default: confirm } = await import('@inquirer/confirm');
  return asked(confirm({ message, default: false }, { output: process.stderr }));
}

/** All of stdin as UTF-8, less one trailing line break ("\n" or "\r\n"). */
export async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8');
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}
