import './base.css';
import './reopened.css';
import './widget.css';
