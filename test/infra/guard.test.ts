import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { describe, expect, inject, it } from 'vitest';
import { rulesFor } from '#infra/guard';
import { soakOnly } from '#test/support/soak';
import { guardComparison } from '#test/support/synthesized';

/**
 * The guard plugin gives cfn-guard only the Control Tower rules that can apply to the templates
 * (infra/guard.ts). These tests check that selection and the plugin's findings on the app with
 * OAuth on, as the run's background synth builds it (test/support/synth-run.ts); under `npm run
 * test:soak` that synth also runs every bundled rule (some 20 s of CPU), and the findings must be
 * the same.
 */
const comparison = await guardComparison();
const { templatePaths } = comparison;
const ALL_RULES = new CfnGuardValidator().ruleIds?.length ?? 0;

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
    const withBucket = join(inject('synthDirs').operations, 'with-bucket.template.json');
    writeFileSync(withBucket, JSON.stringify({ Resources: { Unsafe: { Type: 'AWS::S3::Bucket' } } }));
    expect(rulesFor([withBucket]).some((rule) => rule.includes('/s3/'))).toBe(true);
  });

  it('find on the app its acknowledged findings (infra/guard.ts’s exceptions), each an error', () => {
    expect(comparison.ours.length).toBeGreaterThan(0);
    expect(comparison.severities).toEqual(['error']);
  });

  soakOnly('find on the app exactly what every bundled rule finds', () => {
    // The app's acknowledged findings: the comparison has something to compare.
    expect(comparison.all?.length).toBeGreaterThan(0);
    expect(comparison.ours).toEqual(comparison.all);
  });
});
