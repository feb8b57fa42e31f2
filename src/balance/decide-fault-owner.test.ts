import { describe, expect, it } from 'vitest';
import {
  decideFaultOwner,
  isRequestFault,
  OUTAGE_CONTENTS,
  type FaultOwnerInput,
} from './decide-fault-owner.js';

const first: FaultOwnerInput = {
  answered: false,
  reproducedElsewhere: false,
  repeatedHere: false,
  failingContents: 1,
};

describe('decideFaultOwner', () => {
  it('puts a first 5xx of a content, seen on this deployment only, on the deployment', () => {
    expect(decideFaultOwner(first)).toBe('deployment');
  });

  it('puts a 5xx on the deployment when the same content was answered elsewhere', () => {
    expect(decideFaultOwner({ ...first, answered: true, reproducedElsewhere: true })).toBe('deployment');
  });

  it('puts a 5xx on the request when the same content fails on another deployment too', () => {
    expect(decideFaultOwner({ ...first, reproducedElsewhere: true })).toBe('request');
  });

  it('puts a 5xx on the request when the same content failed here in an earlier request', () => {
    expect(decideFaultOwner({ ...first, repeatedHere: true })).toBe('request');
  });

  it(`puts it on the deployment once ${OUTAGE_CONTENTS} different contents fail there with no success between`, () => {
    const outage = { ...first, reproducedElsewhere: true, repeatedHere: true };
    expect(decideFaultOwner({ ...outage, failingContents: OUTAGE_CONTENTS - 1 })).toBe('request');
    expect(decideFaultOwner({ ...outage, failingContents: OUTAGE_CONTENTS })).toBe('deployment');
  });
});

describe('isRequestFault', () => {
  it('stops failing over once an unanswered content has failed on two deployments', () => {
    expect(isRequestFault({ answered: false, failedDeployments: 1 })).toBe(false);
    expect(isRequestFault({ answered: false, failedDeployments: 2 })).toBe(true);
    expect(isRequestFault({ answered: true, failedDeployments: 3 })).toBe(false);
  });
});
