import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The account and region the local resources pretend to live in. */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON is whatever the template holds
type Json = any;

export interface Template {
  stackName: string;
  Resources: Record<string, { Type: string; Properties?: Json; DependsOn?: Json }>;
  Outputs?: Record<string, { Value: Json; Export?: { Name: Json } }>;
  Parameters?: Record<string, { Default?: Json }>;
  Conditions?: Record<string, Json>;
}

/** The templates of a cloud assembly (cdk.out) with the asset directories they name. */
export interface Assembly {
  dir: string;
  templates: Template[];
  /** The directory holding a Lambda function's code, from its `Code.S3Key` asset hash. */
  assetDir(code: Json): string;
}

export function readAssembly(dir: string): Assembly {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const templates: Template[] = [];
  for (const [name, artifact] of Object.entries<Json>(manifest.artifacts)) {
    if (artifact.type !== 'aws:cloudformation:stack') continue;
    const file = join(dir, artifact.properties.templateFile);
    templates.push({ stackName: name, ...JSON.parse(readFileSync(file, 'utf8')) });
  }
  return {
    dir,
    templates,
    assetDir: (code) => {
      const key = String(code?.S3Key ?? '');
      const hash = key.replace(/\.zip$/, '');
      const path = join(dir, `asset.${hash}`);
      if (!/^[0-9a-f]{64}$/.test(hash) || !existsSync(path)) {
        throw new Error(`no asset directory in ${dir} for code ${JSON.stringify(code)}`);
      }
      return path;
    },
  };
}

/**
 * Physical values for resources, as a deployment would have them: `ref` and `attributes` give
 * what `Ref` and `Fn::GetAtt` answer. Anything not given gets an ARN-shaped placeholder, so a
 * reference nobody mapped still resolves (and shows up as not local in a failing call).
 */
export interface PhysicalResource {
  ref: string;
  attributes?: Record<string, string>;
}

export type Physical = (logicalId: string, resource: Template['Resources'][string]) => PhysicalResource;

/** Resolves intrinsic functions across the templates of one assembly. */
export class Resolver {
  private readonly exports = new Map<string, Json>();

  constructor(
    templates: Template[],
    private readonly physical: Physical,
  ) {
    for (const template of templates) {
      for (const output of Object.values(template.Outputs ?? {})) {
        if (output.Export) {
          this.exports.set(this.resolve(template, output.Export.Name), { template, value: output.Value });
        }
      }
    }
  }

  resource(template: Template, logicalId: string): PhysicalResource {
    const resource = template.Resources[logicalId];
    if (!resource) throw new Error(`${template.stackName}: no resource ${logicalId}`);
    return this.physical(logicalId, resource);
  }

  /** The value with every intrinsic function replaced by what it stands for here. */
  resolve(template: Template, value: Json): Json {
    if (Array.isArray(value)) {
      return value.map((v) => this.resolve(template, v)).filter((v) => v !== NO_VALUE);
    }
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    const fn = keys.length === 1 ? (keys[0] as string) : '';
    const arg = value[fn];
    switch (fn) {
      case 'Ref':
        return this.ref(template, arg);
      case 'Fn::GetAtt': {
        const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(/\.(.*)/s);
        const found = this.resource(template, id).attributes?.[attribute];
        return found ?? `arn:aws:local:${REGION}:${ACCOUNT}:${id}/${attribute}`;
      }
      case 'Fn::ImportValue': {
        const name = this.resolve(template, arg);
        const exported = this.exports.get(name);
        if (!exported) throw new Error(`no export named ${name}`);
        return this.resolve(exported.template, exported.value);
      }
      case 'Fn::Join': {
        const [separator, parts] = arg;
        return (this.resolve(template, parts) as string[]).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = this.resolve(template, arg);
        return list[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, text] = this.resolve(template, arg);
        return String(text).split(separator);
      }
      case 'Fn::Sub': {
        const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
        return String(text).replace(/\$\{([^}]+)\}/g, (_, name: string) =>
          name in vars
            ? this.resolve(template, vars[name])
            : name.includes('.') && !name.startsWith('AWS::')
              ? this.resolve(template, { 'Fn::GetAtt': name })
              : this.ref(template, name),
        );
      }
      case 'Fn::If': {
        const [condition, yes, no] = arg;
        return this.resolve(template, this.condition(template, condition) ? yes : no);
      }
      default:
        return Object.fromEntries(keys.map((k) => [k, this.resolve(template, value[k])]));
    }
  }

  private condition(template: Template, name: string): boolean {
    return Boolean(this.evaluate(template, template.Conditions?.[name]));
  }

  private evaluate(template: Template, expression: Json): unknown {
    if (expression === null || typeof expression !== 'object') return expression;
    const [fn] = Object.keys(expression);
    const arg = expression[fn as string];
    switch (fn) {
      case 'Fn::Equals': {
        const [a, b] = arg.map((x: Json) => this.evaluate(template, x));
        return a === b;
      }
      case 'Fn::Not':
        return !this.evaluate(template, arg[0]);
      case 'Fn::And':
        return arg.every((x: Json) => this.evaluate(template, x));
      case 'Fn::Or':
        return arg.some((x: Json) => this.evaluate(template, x));
      case 'Condition':
        return this.condition(template, arg);
      default:
        return this.resolve(template, expression);
    }
  }

  private ref(template: Template, name: string): Json {
    switch (name) {
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return template.stackName;
      case 'AWS::NoValue':
        return NO_VALUE;
    }
    const parameter = template.Parameters?.[name];
    if (parameter) return parameter.Default;
    return this.resource(template, name).ref;
  }
}

const NO_VALUE = Symbol('AWS::NoValue');
