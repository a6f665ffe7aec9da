/** Configuration the server cannot start with: a bad variable, or one that must be set (the message says which). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
