import type { DeploymentConfig } from '../config/table-part-schemas.js';

/** Reads a secret from the environment by variable name. */
export type ReadSecret = (name: string) => string | undefined;

/** The deployment's API key: the variable its `api_key_env` names, or undefined when it names none. */
export function readDeploymentKey(deployment: DeploymentConfig, readSecret: ReadSecret): string | undefined {
  const name = deployment.api_key_env;
  return name === undefined ? undefined : readSecret(name);
}
