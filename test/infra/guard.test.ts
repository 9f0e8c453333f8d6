import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContext, PolicyValidationPluginReport } from 'aws-cdk-lib';
import { describe, expect, inject, it } from 'vitest';
import { STACK_NAMES } from '#infra/build-app';
import { ControlTowerGuardRules, rulesFor } from '#infra/guard';
import { synthesized } from '#test/support/synthesized';

/**
 * The guard plugin gives cfn-guard only the Control Tower rules that can apply to the templates
 * (infra/guard.ts). These tests hold it to the same findings as every bundled rule, on the app as
 * `npm run synth` builds it.
 */
await synthesized('operations');
const dir = inject('synthDirs').operations;
const templatePaths = Object.values(STACK_NAMES).map((name) => join(dir, `${name}.template.json`));
const context = { templatePaths } as IPolicyValidationContext;
const ALL_RULES = new CfnGuardValidator().ruleIds?.length ?? 0;

/** A report's findings, comparable: rule and resource, sorted. */
const findings = (report: PolicyValidationPluginReport) =>
  report.violations
    .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.templatePath} ${r.resourceLogicalId}`))
    .sort();

describe('the Control Tower guard rules', () => {
  it('are run only where they can find something: a rule per resource type the templates have', () => {
    const types = new Set(
      templatePaths.flatMap((path) =>
        Object.values(
          (JSON.parse(readFileSync(path, 'utf8')) as { Resources: Record<string, { Type: string }> })
            .Resources,
        ).map((r) => r.Type),
      ),
    );
    const rules = rulesFor(templatePaths);
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.length).toBeLessThan(ALL_RULES / 2);
    // Every rule run names a type the templates have...
    for (const rule of rules) {
      const named = readFileSync(rule, 'utf8').match(/AWS::[A-Za-z0-9]+::[A-Za-z0-9]+/g) ?? [];
      expect(
        named.some((type) => types.has(type)),
        rule,
      ).toBe(true);
    }
    // ...and the Lambda and IAM rules are among them, the EC2 and S3 ones are not.
    expect(rules.some((rule) => rule.includes('/lambda/'))).toBe(true);
    expect(rules.some((rule) => rule.includes('/identityandaccessmanagement/'))).toBe(true);
    expect(rules.some((rule) => rule.includes('/ec2/') || rule.includes('/s3/'))).toBe(false);
    // A template with an S3 bucket brings the S3 rules in.
    const withBucket = join(dir, 'with-bucket.template.json');
    const bucket = { Resources: { Unsafe: { Type: 'AWS::S3::Bucket', Properties: {} } } };
    writeFileSync(withBucket, JSON.stringify(bucket));
    expect(rulesFor([withBucket]).some((rule) => rule.includes('/s3/'))).toBe(true);
  });

  it('find on the app exactly what every bundled rule finds', () => {
    const all = new CfnGuardValidator().validate(context);
    const ours = new ControlTowerGuardRules().validate(context);
    // The app's acknowledged findings (infra/guard.ts's exceptions): the comparison has something to compare.
    expect(findings(all).length).toBeGreaterThan(0);
    expect(findings(ours)).toEqual(findings(all));
    expect(ours.violations.every((v) => v.severity === 'error')).toBe(true);
  });
});
