import { decide } from './qa-shared.js';

export const qaFail = decide('svc_qa_fail', 'fail');
