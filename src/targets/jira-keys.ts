/**
 * Jira issue keys as the Jira-based targets (Zephyr, Xray) read them from a Playwright test: an annotation of
 * the target's own type goes to that target only; a Jira-key tag (`@PROJ-1`, also a title token) goes to every
 * enabled Jira target (interface.md, "Mapping"). One rule here, so the targets never disagree on what a key is.
 */
import { annotationValues, tagValues, unique, type NotKey, type TestLike } from '../shared/mapping';

type Test = Pick<TestLike, 'tags' | 'annotations' | 'results'>;

/** A Jira key as Jira writes it (upper case); tags and annotations are read in any case and upper-cased. */
export const JIRA_KEY = /^[A-Z][A-Z0-9_]*-\d+$/;
const KEY_TAG = /^@([A-Za-z][A-Za-z0-9_]*-\d+)$/;
/** `@cs-<id>` in lower case is CucumberStudio's scenario tag, never a Jira key (`@CS-12` is one). */
const SCENARIO_TAG = /^@cs-\d+$/;

/** An annotation's key: `proj-1` as `PROJ-1`, and a Jira issue link (`…/browse/PROJ-1`) as its key. */
function annotationKey(value: string): string {
  return (/\/browse\/([A-Za-z][A-Za-z0-9_]*-\d+)\/?(?:[?#].*)?$/.exec(value)?.[1] ?? value).toUpperCase();
}

/** Jira keys of a test's tags (`@PROJ-1`, `@proj-1`), upper case; `@cs-<id>` is left to CucumberStudio. */
function tagKeys(test: Pick<TestLike, 'tags'>): string[] {
  return tagValues(test, KEY_TAG)
    .filter((k) => !SCENARIO_TAG.test(`@${k}`))
    .map((k) => k.toUpperCase());
}

/** The Jira keys of a test for the target whose annotation type is `annotation` (its annotations, then every Jira-key tag). */
export function jiraKeysOf(test: Test, annotation: string): string[] {
  return unique([
    ...annotationValues(test, annotation)
      .map(annotationKey)
      .filter((k) => JIRA_KEY.test(k)),
    ...tagKeys(test),
  ]);
}

/** Values of the target's annotations that are not keys, and lower-case `@cs-<id>` tags (perhaps meant for Jira project CS). */
export function jiraNotKeys(test: Test, annotation: string): NotKey[] {
  return [
    ...unique(annotationValues(test, annotation).filter((v) => !JIRA_KEY.test(annotationKey(v)))).map((value) => ({
      value,
      from: 'annotation' as const,
    })),
    // Said when CucumberStudio is not configured to take it: the user may have meant the Jira project CS.
    ...unique(tagValues(test, SCENARIO_TAG)).map((value) => ({
      value,
      from: 'tag' as const,
      hint: `lower-case @cs-<id> is a CucumberStudio scenario; a key of the Jira project CS is tagged ${value.toUpperCase()}`,
    })),
  ];
}
