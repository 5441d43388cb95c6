import { randomBytes } from 'node:crypto';
import { AsyncEntry } from '@napi-rs/keyring';
import type { SecretStore } from './secret-store.js';

export const KEYCHAIN_SERVICE = 'ecf-appliance';

/**
 * The OS keychain through @napi-rs/keyring: Windows Credential Manager,
 * macOS Keychain, and on Linux the Secret Service only (gnome-keyring,
 * KWallet). The kernel keyutils fallback forgets everything at reboot, so it
 * is never used: without a Secret Service, this store is unavailable.
 */
export class KeychainStore implements SecretStore {
  readonly kind = 'keychain' as const;

  #entry(name: string): AsyncEntry {
    return new AsyncEntry(KEYCHAIN_SERVICE, name, { linux: { store: 'secret-service' } });
  }

  async put(name: string, secret: Buffer): Promise<void> {
    await this.#entry(name).setPassword(secret.toString('base64'));
  }

  async get(name: string): Promise<Buffer | null> {
    const value = await this.#entry(name).getPassword();
    return value == null ? null : Buffer.from(value, 'base64');
  }

  async delete(name: string): Promise<void> {
    await this.#entry(name).deleteCredential();
  }

  describe(): string {
    return process.platform === 'linux' ? 'Secret Service (D-Bus keychain)' : process.platform === 'win32' ? 'Windows Credential Manager' : 'macOS Keychain';
  }

  /** True when a secret can really be written, read back and removed (an unlocked keychain). */
  static async reachable(): Promise<boolean> {
    const store = new KeychainStore();
    const name = `probe/${randomBytes(8).toString('hex')}`;
    try {
      const token = randomBytes(16);
      await store.put(name, token);
      const back = await store.get(name);
      await store.delete(name);
      return back !== null && back.equals(token);
    } catch {
      return false;
    }
  }
}
