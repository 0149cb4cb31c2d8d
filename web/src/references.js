// references.js: the works whose formulas the page cites, each by the key
// its help texts and formulas use ("Fujii et al. 2024 eq. 10"; the key's
// year is the first version's, on arXiv) with authors, title, venue, year
// of the venue and arXiv id, for the page's References section. docs/references.md lists these and every other work the code cites.

/** @typedef {{key: string, authors: string, title: string, venue: string, year: number, arxiv: string}} Reference */

/** @type {Reference[]} */
export const REFERENCES = [
  { key: 'Narayanan et al. 2021', authors: 'Deepak Narayanan, Mohammad Shoeybi, Jared Casper, Patrick LeGresley, ' +
    'Mostofa Patwary, Vijay Korthikanti, Dmitri Vainbrand, Prethvi Kashinkunti, Julie Bernauer, Bryan Catanzaro, ' +
    'Amar Phanishayee, Matei Zaharia', title: 'Efficient Large-Scale Language Model Training on GPU Clusters Using ' +
    'Megatron-LM', venue: 'SC21', year: 2021, arxiv: '2104.04473' },
  { key: 'Korthikanti et al. 2023', authors: 'Vijay Korthikanti, Jared Casper, Sangkug Lym, Lawrence McAfee, ' +
    'Michael Andersch, Mohammad Shoeybi, Bryan Catanzaro', title: 'Reducing Activation Recomputation in Large ' +
    'Transformer Models', venue: 'MLSys', year: 2023, arxiv: '2205.05198' },
  { key: 'Fujii et al. 2024', authors: 'Kazuki Fujii, Kohei Watanabe, Rio Yokota', title: 'Accelerating Large ' +
    'Language Model Training with 4D Parallelism and Memory Consumption Estimator', venue: 'arXiv preprint',
  year: 2024, arxiv: '2411.06465' },
  { key: 'Subramanian et al. 2024', authors: 'Shashank Subramanian, Ermal Rrapaj, Peter Harrington, Smeet Chheda, ' +
    'Steven Farrell, Brian Austin, Samuel Williams, Nicholas Wright, Wahid Bhimji', title: 'Comprehensive ' +
    'Performance Modeling and System Design Insights for Foundation Models', venue: 'SC24 Workshops (PMBS)',
  year: 2024, arxiv: '2410.00273' },
  { key: 'Chen et al. 2023', authors: 'Qiaoling Chen, Qinghao Hu, Guoteng Wang, Yingtong Xiong, Ting Huang, Xun Chen, ' +
    'Yang Gao, Hang Yan, Yonggang Wen, Tianwei Zhang, Peng Sun', title: 'AMSP: Reducing Communication Overhead of ' +
    'ZeRO for Efficient LLM Training', venue: 'arXiv preprint', year: 2023, arxiv: '2311.00257' },
  { key: 'Wang et al. 2025', authors: 'Jiangtao Wang, Jan Ebert, Oleg Filatov, Stefan Kesselheim', title: 'Memory ' +
    'and Bandwidth are All You Need for Fully Sharded Data Parallel', venue: 'arXiv preprint', year: 2025,
  arxiv: '2504.03655' },
  { key: 'Chowdhery et al. 2022', authors: 'Aakanksha Chowdhery, Sharan Narang, Jacob Devlin, et al.',
    title: 'PaLM: Scaling Language Modeling with Pathways', venue: 'Journal of Machine Learning Research 24',
    year: 2023, arxiv: '2204.02311' },
  { key: 'Sinha et al. 2022', authors: 'Prasoon Sinha, Akhil Guliani, Rutwik Jain, Brandon Tran, Matthew D. Sinclair, ' +
    'Shivaram Venkataraman', title: 'Not All GPUs Are Created Equal: Characterizing Variability in Large-Scale, ' +
    'Accelerator-Rich Systems', venue: 'SC22', year: 2022, arxiv: '2208.11035' },
];
