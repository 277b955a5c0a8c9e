import { svcTestConfig } from '../../vitest.shared.js';

export default svcTestConfig({ database: true });
