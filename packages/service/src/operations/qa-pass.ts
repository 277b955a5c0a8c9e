import { decide } from './qa-shared.js';

export const qaPass = decide('svc_qa_pass', 'pass');
