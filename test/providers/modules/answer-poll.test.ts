/**
 * How long the agent polls for a module's answer (src/promises/custom/answer-poll.ts):
 * about twice what answers lately took, never past 200 µs, not at all for
 * slow modules or on one CPU.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnswerPoll } from "../../../src/providers/modules/answer-poll.js";

test("quick answers are polled for, about twice as long as they take", () => {
  const poll = new AnswerPoll(2);
  for (let i = 0; i < 20; i++) poll.observe(40);
  assert.ok(Math.abs(poll.budgetUs() - 80) < 1, String(poll.budgetUs()));
});

test("slow answers are not polled for, until answers are quick again", () => {
  const poll = new AnswerPoll(2);
  poll.observe(20_000);
  assert.equal(poll.budgetUs(), 0);
  for (let i = 0; i < 30; i++) poll.observe(50);
  assert.ok(poll.budgetUs() > 0 && poll.budgetUs() <= 200, String(poll.budgetUs()));
});

test("the poll never passes 200 µs", () => {
  const poll = new AnswerPoll(2);
  for (let i = 0; i < 20; i++) poll.observe(150);
  assert.equal(poll.budgetUs(), 200);
});

test("with one CPU there is no polling: the module could not answer meanwhile", () => {
  const poll = new AnswerPoll(1);
  for (let i = 0; i < 20; i++) poll.observe(10);
  assert.equal(poll.budgetUs(), 0);
});
